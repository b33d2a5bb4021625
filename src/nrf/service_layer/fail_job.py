"""Use case: record a job whose process was killed at its deadline as failed for good.

It would time out again, so it is never retried; its ending (the record, the requester told
once, the message deleted) is ``job_end.py``'s, as every ending is.
"""

from __future__ import annotations

from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.job_request import IncomingJob
from nrf.service_layer.job_end import JobEnd
from nrf.service_layer.job_outcome import JobOutcome


def timeout_error(seconds: float) -> InvalidInput:
    return InvalidInput(
        [
            Problem(
                code="job_timeout",
                message=f"the assessment took longer than {seconds:g} s and was stopped; "
                "boundaries with very many vertices take far longer, so simplify the boundary "
                "and submit it again",
            )
        ]
    )


class FailJob:
    """Timeouts: the worker process records them itself, under the claim it still holds."""

    def __init__(self, *, end: JobEnd) -> None:
        self._end = end

    def timed_out(self, job: IncomingJob, seconds: float) -> JobOutcome:
        """The job's process was killed after ``seconds``: fail it for good (it would again)."""
        error = timeout_error(seconds)
        return self._end.failed(job.job_id, error, job.email, job.trace_id, job.receipt)
