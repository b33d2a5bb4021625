"""The "started" email: sent at a job's very first claim only, before its work, with no entry.

No record exists until the job ends, so this email cannot be an entry in the ledger
(notifications.py, every ending's): it goes at most once because only the very first claim
of a job asks for it, and a failed send is logged, never retried (the ending's email is the
one that must arrive). Its fields are the ledger's own (``domain/email_fields.py``).
"""

from __future__ import annotations

import logging

from nrf.domain.email_fields import NotifySettings, personalisation
from nrf.domain.job_request import JobRequest
from nrf.domain.jobs import NO_TEMPLATE, Notification, NotificationKind
from nrf.domain.ports import Notifier

log = logging.getLogger("nrf.job")


class StartedEmail:
    """Tells the requester their job has started; what happens to the email is only logged."""

    def __init__(self, *, notifier: Notifier, settings: NotifySettings | None = None) -> None:
        self._notifier, self._settings = notifier, settings or NotifySettings()

    def __call__(self, request: JobRequest) -> None:
        if not request.email:
            return
        sent = self._notifier.send(
            Notification(
                kind=NotificationKind.STARTED,
                recipient=request.email,
                job_id=request.job_id,
                personalisation=personalisation(self._settings, request, None),
                reference=request.job_id,
            )
        )
        if not sent.sent and sent.error != NO_TEMPLATE:
            ctx = {"job_id": request.job_id, "kind": str(NotificationKind.STARTED)}
            log.warning("notification_failed", extra={**ctx, "error": sent.error})
