"""What a job's emails say: the personalisation fields the Notify templates use.

A quote's email carries the levy excluding VAT, the VAT and the total, and every input that
priced it (EDP, charge window and base, index factors, units, quote date, calculator), so a
figure in an inbox can be checked by hand; a refused levy says so with its code and words,
never as £0.00.
"""

from __future__ import annotations

from attrs import frozen

from nrf.domain.job_request import JobRequest
from nrf.domain.levy_text import gbp, levy_lines, levy_sum
from nrf.domain.results import AssessmentRun


@frozen
class NotifySettings:
    """Where emails go and what they link to."""

    results_base_url: str = ""
    support_email: str | None = None


def personalisation(
    settings: NotifySettings, request: JobRequest, run: AssessmentRun | None
) -> dict[str, str]:
    """Job reference, development, results link and, once assessed, totals and levy amounts."""
    base = settings.results_base_url.rstrip("/")
    personal = {
        "job_reference": request.job_id,
        "development_name": request.development_name or "Unnamed development",
        "results_link": f"{base}/{request.job_id}" if base else request.job_id,
    }
    if run is not None:
        # Sum whole pennies: the sites' totals are already rounded to 2 dp.
        n = sum(round(s.n_total * 100) for s in run.sites) / 100
        p = sum(round(s.p_total * 100) for s in run.sites) / 100
        personal.update(
            {
                # The page a planner reads and prints: result.html, stored beside result.json.
                "report_link": f"{base}/{request.job_id}/result.html" if base else "result.html",
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
            else f"quoted for {total.quoted} sites, refused for {total.refused}"
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
