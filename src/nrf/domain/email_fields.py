"""The fields of a job's emails: what each says, from the job and its assessment (pure).

A quote's carry every input that priced it, so a figure in an inbox can be checked by hand;
a refused levy says so with its code, never as £0.00. ``service_layer/notifications.py`` makes
the entries that carry them and sends them.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from nrf.domain.counts import counted
from nrf.domain.job_request import JobRequest
from nrf.domain.jobs import JobRecord, NotificationKind
from nrf.domain.levy_text import gbp, levy_lines, levy_sum
from nrf.domain.result_links import REPORT_NAME, ResultLinks, expiry_words, file_lines
from nrf.domain.results import AssessmentRun


def failure_fields(job_id: str, codes: Sequence[str], message: str) -> dict[str, str]:
    """A failed job's email (to the requester, or support): its codes and what they mean."""
    return {
        "job_reference": job_id,
        "error_codes": ", ".join(codes),
        "error_message": message[:2000],
    }


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


def email_state(record: JobRecord) -> str:
    """Each email of a record and what became of it, for support (the dead letter's own aside)."""
    states = [
        f"{n.kind}: {'sent' if n.sent else (n.error or 'not sent')}"
        for n in record.notifications
        if n.kind is not NotificationKind.DEAD_LETTERED
    ]
    return ", ".join(states) or "none"
