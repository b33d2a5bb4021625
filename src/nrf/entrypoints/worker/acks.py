"""Acknowledging a finished job on the queue, and where that runs: inline or on a thread."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Protocol

from nrf.domain.jobs import QueueTransientError
from nrf.domain.ports import JobInbox
from nrf.service_layer.job_outcome import JobOutcome

if TYPE_CHECKING:
    from nrf.entrypoints.worker.in_flight import Tracked

log = logging.getLogger("nrf.worker")

Metrics = Callable[[str, float, "str | None"], None]


class Acks(Protocol):
    """Runs an acknowledgement; a ThreadPoolExecutor is one, InlineAcks another."""

    def submit(self, fn: Callable[[], None], /) -> Future[None]: ...


class InlineAcks:
    """Runs an acknowledgement at once, in the caller's thread (tests; the simple case)."""

    def submit(self, fn: Callable[[], None]) -> Future[None]:
        future: Future[None] = Future()
        try:
            fn()
            future.set_result(None)
        except BaseException as exc:  # handed to whoever reads the future, as a pool would
            future.set_exception(exc)
        return future


class QueueAcknowledger:
    """Acknowledge on the queue (delete or delay the message), then log the job as finished."""

    def __init__(self, inbox: JobInbox, metrics: Metrics | None = None) -> None:
        self._inbox, self._metrics = inbox, metrics

    def __call__(self, tracked: Tracked, outcome: JobOutcome, seconds: float) -> None:
        try:
            if outcome.delete:
                self._inbox.delete(tracked.job)
            else:
                self._inbox.change_visibility(tracked.job, outcome.retry_after)
        except QueueTransientError as exc:
            # Harmless: the message comes back and is found finished in the result store.
            log.warning("queue_ack_failed", extra={"job_id": outcome.job_id, "error": exc.message})
        log.info(
            "visibility_extension_stats",
            extra={
                "job_id": outcome.job_id,
                "count": tracked.extensions,
                "seconds_extended": tracked.seconds_extended,
                "last_error": tracked.last_error,
            },
        )
        log.info(
            "job_finished",
            extra={
                "job_id": outcome.job_id,
                "status": str(outcome.status),
                "seconds": round(seconds, 3),
                "codes": list(outcome.error_codes),
            },
        )
        if self._metrics is not None:
            self._metrics(str(outcome.status), seconds, outcome.job_id)
