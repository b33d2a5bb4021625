"""The notification ledger: how a job's emails are sent; each intent is stored first.

Every email about a job's result goes through :meth:`NotificationLedger.settle`: stored as
pending with the job record, sent, then updated, so a later delivery finishes an interrupted
send instead of losing it. The one exception, :meth:`send_unrecorded`, is for the two emails
that have no record to live in, and says why at each use. The second channel is
:class:`~nrf.service_layer.sent_once.SentOnce`, at most once, for housekeeping's courtesy
notices (a job delayed, a fleet stalled): there a duplicate would be worse than a miss.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from attrs import evolve

from nrf.domain.jobs import JobRecord, Notification, NotificationKind, NotificationRecord
from nrf.domain.ports import Notifier, ResultStore
from nrf.domain.quote_update import quote_update_json
from nrf.domain.result_port import BACKEND_RECIPIENT, BODY_FIELD, TRACE_FIELD
from nrf.domain.results import SiteAssessment

log = logging.getLogger("nrf.job")

OUTCOME_UNKNOWN = "outcome_unknown"


def intent(
    kind: NotificationKind, recipient: str, details: Mapping[str, str]
) -> NotificationRecord:
    """A pending entry: saved with the job record before the email goes out."""
    return NotificationRecord(
        kind=kind,
        recipient=recipient,
        sent=False,
        pending=True,
        details=tuple(sorted(details.items())),
    )


def result_intent(site: SiteAssessment, trace_id: str | None) -> NotificationRecord:
    """The pending report of a priced site, saved with the job's record before any send."""
    details = {BODY_FIELD: quote_update_json(site), TRACE_FIELD: trace_id or ""}
    return intent(NotificationKind.BACKEND_RESULT, BACKEND_RECIPIENT, details)


def has_pending(record: JobRecord) -> bool:
    return any(n.pending for n in record.notifications)


class NotificationLedger:
    """Sends each pending email of a job record once and saves what happened after each."""

    def __init__(self, store: ResultStore, notifier: Notifier) -> None:
        self._store, self._notifier = store, notifier

    def settle(self, record: JobRecord, *, ask_provider: bool) -> JobRecord:
        """Send the pending entries; ``ask_provider`` when they come from an earlier attempt.

        An earlier attempt may have sent an email and died before saving that it had: the
        provider is asked first. When it cannot tell (SES) and the entry is a bare intent
        (the attempt stopped around the send), the email is not sent again but marked
        ``outcome_unknown``: a missing email can be resent by support from the record, a
        duplicate cannot be taken back. Raises ResultStoreUnavailable or NotificationFailed
        (a failed lookup); the entries stay pending for the next delivery.
        """
        entries = list(record.notifications)
        for index, entry in enumerate(entries):
            if not entry.pending:
                continue
            notification = Notification(
                kind=entry.kind,
                recipient=entry.recipient,
                job_id=record.job_id,
                personalisation=dict(entry.details),
                reference=record.job_id,
            )
            entries[index] = self._settle_one(entry, notification, ask_provider)
            record = evolve(record, notifications=tuple(entries))
            self._store.save(record.job_id, {}, record)
        return record

    def send_unrecorded(self, notification: Notification) -> NotificationRecord:
        """Send without a ledger entry: only where no job record can hold one.

        The "started" email (no record exists until the job ends; it is at most once
        because only the very first claim of a job sends it) and a failure that could not
        be stored (the requester is told anyway; bad input is never retried).
        """
        sent = self._notifier.send(notification)
        if not sent.sent:
            log.warning(
                "notification_failed",
                extra={
                    "job_id": notification.job_id,
                    "kind": str(notification.kind),
                    "error": sent.error,
                },
            )
        return sent

    def _settle_one(
        self, entry: NotificationRecord, notification: Notification, ask_provider: bool
    ) -> NotificationRecord:
        ctx = {"job_id": notification.job_id, "kind": str(entry.kind)}
        if ask_provider:
            known = self._notifier.sent_before(notification)
            if known:
                log.info("notification_already_sent", extra=ctx)
                return evolve(entry, sent=True, pending=False, error=None)
            if known is None and entry.attempts == 0:
                log.warning("notification_outcome_unknown", extra=ctx)
                return evolve(entry, pending=False, error=OUTCOME_UNKNOWN)
        sent = self._notifier.send(notification)
        if not sent.sent:
            log.warning(
                "notification_failed", extra={**ctx, "error": sent.error, "pending": sent.pending}
            )
        return evolve(sent, details=entry.details, attempts=entry.attempts + sent.attempts)
