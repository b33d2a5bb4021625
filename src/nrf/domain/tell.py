"""What a job's ending tells, as its use case knows it; ``service_layer/notifications.py``
makes the entries, so no use case builds an email itself."""

from __future__ import annotations

from attrs import frozen

from nrf.domain.job_request import JobRequest
from nrf.domain.results import AssessmentRun


@frozen(kw_only=True)
class CompletedTell:
    """Assessed: the requester's "completed" email; a Defra quote's report to the backend."""

    request: JobRequest
    run: AssessmentRun


@frozen(kw_only=True)
class FailedTell:
    """Failed for good: the requester told the record's codes; support too for a refused quote."""

    email: str | None
    to_support: bool = False


@frozen(kw_only=True)
class DeadLetterTell:
    """Dead-lettered: support told ``reason`` (and the requester, if never told); ``stored``
    when the result is stored and only its email is in doubt."""

    email: str | None
    reason: str
    stored: bool = False


@frozen(kw_only=True)
class FinishedTell:
    """Found finished: its pending entries settled, and the requester's email added when the
    record was saved without one (``nrf dlq``, an older worker)."""

    request: JobRequest | None = None


Tell = CompletedTell | FailedTell | DeadLetterTell | FinishedTell
