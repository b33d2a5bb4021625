"""What a job's emails say: the personalisation fields the Notify templates use."""

from __future__ import annotations

from attrs import frozen

from nrf.domain.job_request import JobRequest
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
        levy = run.levy_total
        personal.update(
            {
                # The page a planner reads and prints: result.html, stored beside result.json.
                "report_link": f"{base}/{request.job_id}/result.html" if base else "result.html",
                "nitrogen_total_kg_per_year": f"{n:.2f}",
                "phosphorus_total_kg_per_year": f"{p:.2f}",
                "levy_amount": f"£{levy.levy_gbp:,.2f}",
                "monitoring_amount": f"£{levy.monitoring_gbp:,.2f}",
                "maintenance_amount": f"£{levy.maintenance_gbp:,.2f}",
                "admin_amount": f"£{levy.admin_gbp:,.2f}",
                "in_scope": "yes" if run.sites else "no",
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
