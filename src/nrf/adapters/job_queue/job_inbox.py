"""ReadingJobInbox: a JobQueue whose messages are read (parsed) once, as they arrive."""

from __future__ import annotations

from nrf.adapters.job_queue.job_message import read_job
from nrf.domain.job_request import IncomingJob
from nrf.domain.ports import JobQueue


class ReadingJobInbox:
    """Wraps any JobQueue (SQS, or an in-memory fake) so callers only ever see jobs."""

    def __init__(self, queue: JobQueue) -> None:
        self._queue = queue

    def receive(
        self, max_messages: int, wait_seconds: int, visibility_timeout: int | None
    ) -> list[IncomingJob]:
        messages = self._queue.receive(max_messages, wait_seconds, visibility_timeout)
        return [read_job(message) for message in messages]

    def delete(self, job: IncomingJob) -> None:
        self._queue.delete(job.message)

    def change_visibility(self, job: IncomingJob, seconds: int) -> None:
        self._queue.change_visibility(job.message, seconds)
