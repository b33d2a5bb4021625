"""The result as Defra's backend takes it: `PATCH /quotes/{reference}` with one entry per EDP.

Each EDP entry carries that EDP's own share of the impact and its own levy (the split), not
the whole site's totals repeated under every EDP, so summing the entries gives the site's
figures and nothing is charged twice. Money goes as numbers of pounds to the penny, with
``min`` = ``max`` (the backend's range shape; the calculation gives one figure). An
out-of-scope site is reported too, with no EDPs and the reason, so the backend always hears
back. The provenance says which rules, bundle and software produced the figures.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from nrf.domain.results import AssessmentRun, EdpLevy, LevyQuote, Provenance, SiteAssessment

EDP_TYPE = "NUTRIENT"
KG_UNIT = "kg/year"


def _money(value: Decimal) -> float:
    return float(value)


def _levy(quote: LevyQuote | None) -> dict[str, Any] | None:
    if quote is None:
        return None  # the bundle has no rate for this EDP: no figure rather than a wrong one
    levy = _money(quote.levy_gbp)
    return {
        "min": levy,
        "max": levy,
        "monitoring": _money(quote.monitoring_gbp),
        "maintenance": _money(quote.maintenance_gbp),
        "admin": _money(quote.admin_gbp),
        "mitigation": _money(quote.mitigation_gbp),
    }


def _edp(edp: EdpLevy, site: SiteAssessment) -> dict[str, Any]:
    # Named for its Natura 2000 site(s), as the backend names EDPs; else the rate's EDP name.
    n2k = sorted({c.n2k_site_name for c in site.catchments if c.edp_id == edp.edp_id})
    return {
        "edpId": edp.edp_id,
        "edpName": " / ".join(n2k) or edp.edp_name or "",
        "edpType": EDP_TYPE,
        "impact": {
            "nitrogenTotal": {"amount": round(edp.n_total, 2), "unit": KG_UNIT},
            "phosphorusTotal": {"amount": round(edp.p_total, 2), "unit": KG_UNIT},
        },
        "levyGbp": _levy(edp.quote),
    }


def _provenance(p: Provenance) -> dict[str, Any]:
    return {
        "ruleSet": p.rule_set,
        "bundleName": p.bundle_name,
        "bundleVersion": p.bundle_version,
        "bundleSha256": p.bundle_sha256,
        "syntheticData": p.synthetic_data,
        "softwareVersion": p.software_version,
    }


def quote_update(run: AssessmentRun) -> dict[str, Any]:
    """The PATCH body for a one-development job."""
    body: dict[str, Any] = {
        "edps": [_edp(edp, site) for site in run.sites for edp in site.levy_by_edp],
        "provenance": _provenance(run.provenance),
    }
    if not run.sites and run.out_of_scope:
        reason = run.out_of_scope[0]
        body["outOfScope"] = {"reasonCode": reason.reason_code, "reason": reason.reason}
    return body


def quote_update_json(run: AssessmentRun) -> str:
    return json.dumps(quote_update(run), sort_keys=True)
