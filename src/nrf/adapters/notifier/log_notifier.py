"""LogNotifier: the embedded default Notifier, one structured log line per notification."""

from __future__ import annotations

import logging

from nrf.domain.jobs import Notification, NotificationRecord


def mask_email(address: str) -> str:
    """Keep the domain and the first character: enough to debug, not a mailing list."""
    local, at, domain = address.rpartition("@")
    if not at:
        return "***"
    return f"{local[:1]}***@{domain}"


class LogNotifier:
    """Sends nothing; records that it would have, and reports success."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._logger = logger or logging.getLogger(__name__)

    def send(self, notification: Notification) -> NotificationRecord:
        self._logger.info(
            "notification_logged",
            extra={
                "event": "notification_logged",
                "kind": notification.kind.value,
                "job_id": notification.job_id,
                "recipient": mask_email(notification.recipient),
                "reference": notification.reference,
                "personalisation": dict(notification.personalisation),
            },
        )
        return NotificationRecord(
            kind=notification.kind, recipient=notification.recipient, sent=True, attempts=1
        )

    def sent_before(self, notification: Notification) -> bool | None:
        """Nothing was ever emailed, so logging it again cannot email anyone twice."""
        return False
