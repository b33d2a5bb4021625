"""The ledger's one channel: emails go to the notifier, result reports to Defra's backend.

The ledger settles every pending entry of a job through one Notifier; this routes each entry
by its kind, so a result report is recorded before it is sent, settled after, retried while
pending and never sent again once settled, exactly as an email is. It also keeps a small
index of jobs whose report is not delivered (``.undelivered/<job id>.json``), so `nrf status`
can name them without reading every job record; a delivery removes the job from it.
"""

from __future__ import annotations

import json
import logging

from nrf.domain.errors import NrfError
from nrf.domain.jobs import Notification, NotificationKind, NotificationRecord
from nrf.domain.ops_ports import OpsRecords
from nrf.domain.ports import Clock, Notifier
from nrf.domain.result_port import BackendResults, undelivered_key

log = logging.getLogger("nrf.backend")


class DeliveryChannels:
    """A Notifier that sends result reports to the backend and everything else as email."""

    def __init__(
        self,
        *,
        emails: Notifier,
        backend: BackendResults | None,
        records: OpsRecords,
        clock: Clock,
    ) -> None:
        self._emails, self._backend = emails, backend
        self._records, self._clock = records, clock

    def send(self, notification: Notification) -> NotificationRecord:
        if notification.kind is not NotificationKind.BACKEND_RESULT:
            return self._emails.send(notification)
        if self._backend is None:
            outcome = NotificationRecord(
                kind=notification.kind,
                recipient=notification.recipient,
                sent=False,
                error="backend_not_configured",
            )
        else:
            outcome = self._backend.send(notification)
        self._index(notification.job_id, outcome.sent, outcome.error, outcome.pending)
        return outcome

    def sent_before(self, notification: Notification) -> bool | None:
        if notification.kind is not NotificationKind.BACKEND_RESULT:
            return self._emails.sent_before(notification)
        if self._backend is None:
            return None
        known = self._backend.sent_before(notification)
        if known:
            self._index(notification.job_id, True, None, False)
        return known

    def _index(self, job_id: str, sent: bool, error: str | None, pending: bool) -> None:
        key = undelivered_key(job_id)
        try:
            if sent:
                self._records.delete(key)
            else:
                entry = {"at": self._clock.now(), "error": error, "pending": pending}
                self._records.put(key, json.dumps(entry).encode())
        except (NrfError, OSError, ValueError) as exc:
            # Only the index for `nrf status`: the job's own record still says it all.
            log.warning("undelivered_index_failed", extra={"job_id": job_id, "error": str(exc)})
