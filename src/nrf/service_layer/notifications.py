"""Every email of a job, in one place: what each kind says, its pending entry, and the ledger.

When a job's email goes: its entry is written pending into the job record, the record is
saved (with the result), and only then :meth:`NotificationLedger.settle` sends it and saves
what happened. A receive that dies in between leaves the entry pending; the message is then
kept (``job_outcome.py``) and the next receive settles it (:meth:`NotificationLedger.finish`),
asking the provider first. Every email about a job's result goes this way; the one exception,
:meth:`send_unrecorded`, is for the two emails that have no record to live in (the "started"
email, at the very first claim only, and a failure that could not be stored), and says why at
each use. The second channel is :class:`~nrf.service_layer.sent_once.SentOnce`, at most once,
for housekeeping's courtesy notices (a job delayed, a fleet stalled): there a duplicate would
be worse than a miss. Over 200 lines: the fields of each kind (a quote's carry every input
that priced it, so a figure in an inbox can be checked by hand; a refused levy says so with
its code, never as £0.00) read best beside the entries that carry them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from attrs import evolve, frozen

from nrf.domain.counts import counted
from nrf.domain.job_request import JobRequest
from nrf.domain.jobs import (
    NO_TEMPLATE,
    JobRecord,
    JobStatus,
    Notification,
    NotificationKind,
    NotificationRecord,
)
from nrf.domain.levy_text import gbp, levy_lines, levy_sum
from nrf.domain.ports import Notifier, ResultStore
from nrf.domain.quote_update import quote_update_json
from nrf.domain.result_links import REPORT_NAME, ResultLinks, expiry_words, file_lines
from nrf.domain.result_port import BACKEND_RECIPIENT, BODY_FIELD, TRACE_FIELD
from nrf.domain.results import AssessmentRun, SiteAssessment

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


def result_intent(
    site: SiteAssessment, trace_id: str | None, labels: tuple[str, ...] = ()
) -> NotificationRecord:
    """The pending report of a priced site, saved with the job's record before any send: its
    body is made here once, and every attempt, retry or restart sends exactly these bytes."""
    details = {BODY_FIELD: quote_update_json(site, labels), TRACE_FIELD: trace_id or ""}
    return intent(NotificationKind.BACKEND_RESULT, BACKEND_RECIPIENT, details)


def failure_fields(job_id: str, codes: Sequence[str], message: str) -> dict[str, str]:
    """A failed job's email (to the requester, or support): its codes and what they mean."""
    return {
        "job_reference": job_id,
        "error_codes": ", ".join(codes),
        "error_message": message[:2000],
    }


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

    def finish(
        self, record: JobRecord, missing_email: tuple[str, dict[str, str]] | None = None
    ) -> JobRecord:
        """A job found finished: settle only its unsettled emails, asking the provider first.

        ``missing_email`` (recipient, details) adds the requester's email when the record was
        written without its intent (``nrf dlq``, an older worker).
        """
        wanted = (
            NotificationKind.COMPLETED
            if record.status is JobStatus.SUCCEEDED
            else NotificationKind.FAILED
        )
        if missing_email and wanted not in {n.kind for n in record.notifications}:
            entry = intent(wanted, missing_email[0], missing_email[1])
            record = evolve(record, notifications=(*record.notifications, entry))
        if record.has_pending():
            record = self.settle(record, ask_provider=True)
        return record

    def send_unrecorded(self, notification: Notification) -> NotificationRecord:
        """Send without a ledger entry: only where no job record can hold one.

        The "started" email (no record exists until the job ends; it is at most once
        because only the very first claim of a job sends it) and a failure that could not
        be stored (the requester is told anyway; bad input is never retried).
        """
        sent = self._notifier.send(notification)
        if not sent.sent and sent.error != NO_TEMPLATE:
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
        if not sent.sent and sent.error != NO_TEMPLATE:
            log.warning(
                "notification_failed", extra={**ctx, "error": sent.error, "pending": sent.pending}
            )
        return evolve(sent, details=entry.details, attempts=entry.attempts + sent.attempts)


@frozen
class NotifySettings:
    """Where emails go and what they link to."""

    results_base_url: str = ""
    support_email: str | None = None


def personalisation(
    settings: NotifySettings,
    request: JobRequest,
    run: AssessmentRun | None,
    links: ResultLinks | None = None,
) -> dict[str, str]:
    """Job reference, development and, once assessed, the links, totals and levy amounts.

    ``links`` are the stored files' links the "completed" email carries (presigned in S3);
    without them the links are made from ``results_base_url`` as before.
    """
    personal = {
        "job_reference": request.job_id,
        "development_name": request.development_name or "Unnamed development",
    }
    if run is not None:
        # Sum whole pennies: the sites' totals are already rounded to 2 dp.
        n = sum(round(s.n_total * 100) for s in run.sites) / 100
        p = sum(round(s.p_total * 100) for s in run.sites) / 100
        personal.update(
            {
                **link_fields(settings, request.job_id, links),
                "nitrogen_total_kg_per_year": f"{n:.2f}",
                "phosphorus_total_kg_per_year": f"{p:.2f}",
                "in_scope": "yes" if run.sites else "no",
                **levy_fields(run),
            }
        )
        # Which reference data priced the quote, so a figure in an email can be traced.
        personal.update(
            {
                "bundle_name": run.provenance.bundle_name,
                "bundle_version": run.provenance.bundle_version,
                "bundle_sha256": run.provenance.bundle_sha256,
            }
        )
    return personal


def link_fields(settings: NotifySettings, job_id: str, links: ResultLinks | None) -> dict[str, str]:
    """The report's link (the page a planner reads and prints), every file's, and their expiry."""
    if links is None:
        base = settings.results_base_url.rstrip("/")
        links = ResultLinks(
            files=((REPORT_NAME, f"{base}/{job_id}/{REPORT_NAME}" if base else REPORT_NAME),)
        )
    return {
        "report_link": links.url(REPORT_NAME) or "the report could not be drawn",
        "result_files": file_lines(links),
        "links_expiry": expiry_words(links),
    }


# The completed email's fields that come from the assessment (checked against personalisation).
RUN_FIELDS = (
    "report_link",
    "result_files",
    "links_expiry",
    "nitrogen_total_kg_per_year",
    "phosphorus_total_kg_per_year",
    "in_scope",
    "levy_status",
    "levy_refusal_codes",
    "levy_details",
    "levy_amount",
    "levy_vat_amount",
    "levy_amount_including_vat",
    "quote_date",
    "edp",
    "calculator_version",
    "bundle_name",
    "bundle_version",
    "bundle_sha256",
)
IN_THE_REPORT = "see the report"


def completed_without_run(
    settings: NotifySettings, request: JobRequest, links: ResultLinks | None = None
) -> dict[str, str]:
    """A completed email for a record saved without one: the figures live in the stored
    report, not the record, so each says where to read it (Notify needs every field)."""
    fields = personalisation(settings, request, None)
    fields.update(dict.fromkeys(RUN_FIELDS, IN_THE_REPORT))
    fields.update(link_fields(settings, request.job_id, links))
    return fields


def levy_fields(run: AssessmentRun) -> dict[str, str]:
    """The levy in an email: the quoted amounts (refused sites are not added), or "not quoted".

    ``levy_details`` is the working line by line for each site (or the refusal, for an
    excluded site its areas and the Habitats Regulations Assessment route).
    """
    total = levy_sum(run.sites)
    details = [
        f"Site {s.site.id}: " + "; ".join(levy_lines(s))
        for s in sorted(run.sites, key=lambda s: s.site.rlb_id)
    ]
    refusals = [s.levy_refusal for s in run.sites if s.levy_refusal is not None]
    fields = {
        "levy_status": (
            "not quoted"
            if not total.quoted
            else "quoted"
            if not total.refused
            else f"quoted for {counted(total.quoted, 'site')}, refused for {total.refused}"
        ),
        "levy_refusal_codes": ", ".join(r.code for r in refusals),
        "levy_details": "\n".join(details) or "No site was assessed, so no levy is due.",
    }
    if total.quoted:
        pricing = [s.pricing for s in run.sites if s.pricing is not None]
        return {
            **fields,
            "levy_amount": gbp(total.excluding_vat),
            "levy_vat_amount": gbp(total.vat),
            "levy_amount_including_vat": gbp(total.including_vat),
            "quote_date": ", ".join(sorted({p.quote_date.isoformat() for p in pricing})),
            "edp": ", ".join(sorted({f"{p.edp_id} {p.edp_name}" for p in pricing})),
            "calculator_version": ", ".join(sorted({p.calculator_version for p in pricing})),
        }
    not_quoted = "not quoted" + (f" ({fields['levy_refusal_codes']})" if refusals else "")
    return {
        **fields,
        "levy_amount": not_quoted,
        "levy_vat_amount": not_quoted,
        "levy_amount_including_vat": not_quoted,
        "quote_date": "",
        "edp": "",
        "calculator_version": "",
    }
