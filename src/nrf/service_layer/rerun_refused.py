"""Use case: send refused Defra quotes back to the queue, to be assessed with today's bundle.

A quote refused for want of data (no charge for the date, an EDP the bundle does not know…)
is failed at once and its message deleted, so it never reaches the dead-letter queue; its
record names the bundle that refused it and its message is kept beside it. Sent again, the
worker assesses it afresh only when its bundle is another one: with the same bundle the answer
could not change, so the stored refusal stands and nothing is sent twice.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from nrf.domain.jobs import JobStatus
from nrf.domain.ports import JobQueue, ResultFiles, ResultStore

log = logging.getLogger("nrf.dlq")

MESSAGE_FILE = "message.json"


class RerunRefusedQuotes:
    """For each reference: requeue its kept message, or say why not."""

    def __init__(self, store: ResultStore, files: ResultFiles, queue: JobQueue) -> None:
        self._store, self._files, self._queue = store, files, queue

    def __call__(self, references: Iterable[str]) -> dict[str, str]:
        """{reference: "requeued", "not_found", "not_refused" or "no_message"}."""
        outcomes: dict[str, str] = {}
        for reference in references:
            outcomes[reference] = self._one(reference)
            log.info(
                "quote_rerun_requested", extra={"job_id": reference, "outcome": outcomes[reference]}
            )
        return outcomes

    def _one(self, reference: str) -> str:
        record = self._store.record(reference)
        if record is None:
            return "not_found"
        if record.status is not JobStatus.FAILED or record.bundle is None:
            return "not_refused"  # succeeded, or failed on its input: a rerun cannot help
        body = self._files.read(reference, MESSAGE_FILE)
        if body is None:
            return "no_message"
        self._queue.send(body.decode("utf-8", "surrogatepass"))
        return "requeued"
