"""The second email channel, at most once: a notice's record is created before it is sent.

The first channel, the notification ledger, carries a job's result emails and finishes an
interrupted send on the next receive. Courtesy notices raised by housekeeping (a job delayed,
a fleet stalled) have no receive to retry them: they go here instead.

Creating a record that must not exist yet is atomic in both stores (``link`` on disk,
``If-None-Match: *`` on S3): of two housekeeping runs racing over one notice, one sends and
the other sees the record. A run killed between the record and the send leaves the notice
unsent, on the record as pending: for a courtesy notice (a delay, a stall) a missing email is
better than a duplicate, as the ledger decides for SES.
"""

from __future__ import annotations

import json

from nrf.domain.jobs import Notification, NotificationRecord
from nrf.domain.ops_ports import OpsRecords
from nrf.domain.ports import Clock, Notifier

NOTICES_FOLDER = ".notices"


def notice_key(name: str) -> str:
    return f"{NOTICES_FOLDER}/{name}.json"


class SentOnce:
    """Send a notification unless its notice record exists already."""

    def __init__(self, records: OpsRecords, notifier: Notifier, clock: Clock) -> None:
        self._records, self._notifier, self._clock = records, notifier, clock

    def send(self, name: str, notification: Notification) -> NotificationRecord | None:
        """The outcome, or None when the notice was claimed before (by us or another run)."""
        key = notice_key(name)
        entry = {
            "kind": str(notification.kind),
            "job_id": notification.job_id,
            "at": self._clock.now(),
            "pending": True,
        }
        if not self._records.put_new(key, json.dumps(entry).encode()):
            return None
        sent = self._notifier.send(notification)
        entry.update(pending=False, sent=sent.sent, error=sent.error, provider_id=sent.provider_id)
        self._records.put(key, json.dumps(entry).encode())
        return sent


def notice_time(data: bytes) -> float | None:
    """When a notice was claimed, or None for a record that is not a notice."""
    try:
        return float(json.loads(data)["at"])
    except (ValueError, KeyError, TypeError):
        return None
