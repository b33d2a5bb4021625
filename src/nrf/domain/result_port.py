"""The result port: where a job's result is reported beside the emails (Defra's backend).

It has the Notifier's shape on purpose: a result report is one more entry in the job's
notification ledger, recorded before it is sent and settled after, so the ledger that keeps
emails from going twice keeps the callback from going twice too.
"""

from __future__ import annotations

from typing import Protocol

from nrf.domain.jobs import Notification, NotificationRecord

BACKEND_RECIPIENT = "backend"
BODY_FIELD = "body"  # the PATCH body, as JSON text, in the entry's details
TRACE_FIELD = "trace_id"
# The index of jobs whose report is not delivered, beside the ops records (`nrf status`).
UNDELIVERED_FOLDER = ".undelivered"


def undelivered_key(job_id: str) -> str:
    return f"{UNDELIVERED_FOLDER}/{job_id}.json"


class BackendResults(Protocol):
    """Reports a job's result; never raises for backend errors, returns what happened."""

    def send(self, notification: Notification) -> NotificationRecord: ...

    def sent_before(self, notification: Notification) -> bool | None:
        """Whether the backend already holds this result; raises NotificationFailed when it
        cannot be asked right now."""
        ...
