"""Every notification of a job, in one place: each entry made, stored pending, then sent.

:meth:`NotificationLedger.store_and_settle` makes an ending's entries, saves them pending
with the record (and the result), and only then sends each and saves what happened; a receive
that dies in between leaves them pending for the next, which asks the provider first.
``job_end.py`` says when; ``domain/email_fields.py`` what each says. The other channel, at
most once, is :class:`~nrf.service_layer.sent_once.SentOnce` (delay and stall notices).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from attrs import evolve

from nrf.domain.email_fields import (
    NotifySettings,
    completed_without_run,
    email_state,
    failure_fields,
    personalisation,
)
from nrf.domain.jobs import (
    NO_TEMPLATE,
    JobRecord,
    JobStatus,
    Notification,
    NotificationKind,
    NotificationRecord,
    ResultStoreUnavailable,
)
from nrf.domain.ports import Clock, Notifier, ResultStore
from nrf.domain.quote_update import quote_update_json
from nrf.domain.result_links import STORED_NAMES, ResultLinker, ResultLinks
from nrf.domain.result_port import BACKEND_RECIPIENT, BODY_FIELD, TRACE_FIELD
from nrf.domain.results import SiteAssessment
from nrf.domain.tell import (
    CompletedTell,
    DeadLetterTell,
    FailedTell,
    FinishedTell,
    Tell,
)

log = logging.getLogger("nrf.job")
dlq_log = logging.getLogger("nrf.dlq")

OUTCOME_UNKNOWN = "outcome_unknown"
DEAD_LETTER_CODES = ("dead_lettered",)


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


def result_intent(
    site: SiteAssessment, trace_id: str | None, labels: tuple[str, ...] = ()
) -> NotificationRecord:
    """The pending report of a priced site, saved with the job's record before any send: its
    body is made here once, and every attempt, retry or restart sends exactly these bytes."""
    details = {BODY_FIELD: quote_update_json(site, labels), TRACE_FIELD: trace_id or ""}
    return intent(NotificationKind.BACKEND_RESULT, BACKEND_RECIPIENT, details)


def unsent(kind: NotificationKind, error: str) -> NotificationRecord:
    """The entry of an email that cannot go (no address configured): a fact, never pending."""
    return NotificationRecord(kind=kind, recipient="", sent=False, error=error)


def entry_notification(entry: NotificationRecord, job_id: str) -> Notification:
    """The email (or report) an entry of the job's record stands for."""
    return Notification(
        kind=entry.kind,
        recipient=entry.recipient,
        job_id=job_id,
        personalisation=dict(entry.details),
        reference=job_id,
    )


class NotificationLedger:
    """Makes a job's entries, saves them with its record, sends each once, saves what happened."""

    def __init__(
        self,
        store: ResultStore,
        notifier: Notifier,
        *,
        settings: NotifySettings | None = None,
        links: ResultLinker | None = None,
        clock: Clock | None = None,
        report_results: bool = False,
    ) -> None:
        self._store, self._notifier = store, notifier
        self._settings = settings or NotifySettings()
        # The "completed" email's links to the stored files (presigned in S3), made at now.
        self._links, self._clock = links, clock
        # Defra quotes' results also go to the backend, as one more entry in the ledger.
        self._report_results = report_results

    def store_and_settle(
        self,
        record: JobRecord,
        tell: Tell,
        *,
        files: Mapping[str, bytes] | None = None,
        found: bool = False,
    ) -> JobRecord | None:
        """What an ending tells: its entries made, stored pending, then sent; the settled record.

        ``found``: the record was stored before; its pending entries are settled first, asking
        the provider (an earlier attempt may have sent them), and it is saved again only with
        new entries. Otherwise the record lands with ``files`` and its pending entries together,
        and only then is each sent. A failure the store refuses is told anyway, unrecorded,
        and None returned (retrying never makes bad input good).
        """
        if found:
            extra = self._missing_email(record, tell) if isinstance(tell, FinishedTell) else ()
            record = self.finish(record, extra)
        entries = self._entries(record, tell, files or {})
        if found and not entries:
            return record
        record = evolve(record, notifications=(*record.notifications, *entries))
        try:
            where = self._store.save(record.job_id, dict(files or {}), record)
        except ResultStoreUnavailable:
            if not isinstance(tell, FailedTell):
                raise
            log.warning("failure_not_recorded", extra={"job_id": record.job_id})
            for entry in entries:
                self.send_unrecorded(entry_notification(entry, record.job_id))
            return None
        if isinstance(tell, CompletedTell):
            log.info("job_stored", extra={"job_id": record.job_id, "where": where})
        return self.settle(record, ask_provider=False)

    def settle(self, record: JobRecord, *, ask_provider: bool) -> JobRecord:
        """Send the pending entries; ``ask_provider`` when they come from an earlier attempt.

        An earlier attempt may have sent an email and died before saving that it had: the
        provider is asked first. When it cannot tell (SES) and the entry is a bare intent
        (the attempt stopped around the send), the email is not sent again but marked
        ``outcome_unknown``: a missing email can be resent by support from the record, a
        duplicate cannot be taken back. Raises ResultStoreUnavailable or NotificationFailed
        (a failed lookup); the entries stay pending for the next receive.
        """
        entries = list(record.notifications)
        for index, entry in enumerate(entries):
            if not entry.pending:
                continue
            notification = entry_notification(entry, record.job_id)
            entries[index] = self._settle_one(entry, notification, ask_provider)
            record = evolve(record, notifications=tuple(entries))
            self._store.save(record.job_id, {}, record)
        return record

    def finish(self, record: JobRecord, extra: tuple[NotificationRecord, ...] = ()) -> JobRecord:
        """A job found finished: ``extra`` entries added, its unsettled ones settled, asking
        the provider first."""
        if extra:
            record = evolve(record, notifications=(*record.notifications, *extra))
        if record.has_pending():
            record = self.settle(record, ask_provider=True)
        return record

    def send_unrecorded(self, notification: Notification) -> NotificationRecord:
        """Send without a ledger entry: only where no job record can hold one (a failure that
        could not be stored; the "started" email is started_email.py's)."""
        sent = self._notifier.send(notification)
        if not sent.sent and sent.error != NO_TEMPLATE:
            ctx = {"job_id": notification.job_id, "kind": str(notification.kind)}
            log.warning("notification_failed", extra={**ctx, "error": sent.error})
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
        if not sent.sent and sent.error != NO_TEMPLATE:
            log.warning(
                "notification_failed", extra={**ctx, "error": sent.error, "pending": sent.pending}
            )
        return evolve(sent, details=entry.details, attempts=entry.attempts + sent.attempts)

    def _entries(
        self, record: JobRecord, tell: Tell, files: Mapping[str, bytes]
    ) -> tuple[NotificationRecord, ...]:
        """The new entries of an ending, each kind with the fields its template needs."""
        job_id = record.job_id
        told: tuple[NotificationRecord, ...] = ()
        if isinstance(tell, CompletedTell):
            request = tell.request
            if request.email:
                links = self._links_to(job_id, tuple(n for n in STORED_NAMES if n in files))
                details = personalisation(self._settings, request, tell.run, links)
                told = (intent(NotificationKind.COMPLETED, request.email, details),)
            if self._report_results and request.schema == "defra-quote":
                site = tell.run.sites[0]
                told += (result_intent(site, request.trace_id, request.edp_labels),)
            return told
        if isinstance(tell, FailedTell):
            personal = failure_fields(job_id, record.error_codes, record.message)
            if tell.email:
                told = (intent(NotificationKind.FAILED, tell.email, personal),)
            if tell.to_support and self._settings.support_email:
                support = self._settings.support_email
                told += (intent(NotificationKind.QUOTE_REFUSED, support, personal),)
            elif tell.to_support:
                log.warning("quote_refusal_unreported", extra={"job_id": job_id})
            return told
        if isinstance(tell, DeadLetterTell):
            return self._dead_lettered(record, tell)
        return ()

    def _dead_lettered(
        self, record: JobRecord, tell: DeadLetterTell
    ) -> tuple[NotificationRecord, ...]:
        if tell.stored:
            reason = (
                "the result is stored but the requester's email could not be confirmed: "
                + email_state(record)
            )
            return (self._support_entry(record.job_id, reason),)
        told: tuple[NotificationRecord, ...] = (self._support_entry(record.job_id, tell.reason),)
        if tell.email and not record.notifications:
            details = failure_fields(record.job_id, DEAD_LETTER_CODES, tell.reason)
            told += (intent(NotificationKind.FAILED, tell.email, details),)
        return told

    def _support_entry(self, job_id: str, reason: str) -> NotificationRecord:
        support = self._settings.support_email
        if not support:
            dlq_log.warning("dead_letter_unreported", extra={"job_id": job_id, "reason": reason})
            return unsent(NotificationKind.DEAD_LETTERED, "no_support_address")
        details = failure_fields(job_id, DEAD_LETTER_CODES, reason)
        return intent(NotificationKind.DEAD_LETTERED, support, details)

    def _missing_email(
        self, record: JobRecord, tell: FinishedTell
    ) -> tuple[NotificationRecord, ...]:
        """The requester's email for a finished record saved without one, with every field its
        template needs: a failure's codes and message from the record; a success's figures are
        only in its stored report, so the email points there."""
        request = tell.request
        failed = record.status is JobStatus.FAILED
        wanted = NotificationKind.FAILED if failed else NotificationKind.COMPLETED
        if request is None or not request.email:
            return ()
        if any(n.kind is wanted for n in record.notifications):
            return ()
        if failed:
            details = personalisation(self._settings, request, None)
            details.update(failure_fields(record.job_id, record.error_codes, record.message))
        else:
            links = self._links_to(request.job_id, STORED_NAMES)
            details = completed_without_run(self._settings, request, links)
        return (intent(wanted, request.email, details),)

    def _links_to(self, job_id: str, names: tuple[str, ...]) -> ResultLinks | None:
        if self._links is None or self._clock is None:
            return None
        return self._links.links(job_id, names, self._clock.now())
