"""The result as Defra's backend takes it: `PATCH /quotes/{reference}`, exactly its schema.

The backend refuses a body with any key its schema does not name, so this carries nothing
else: one entry, the job's EDP, with the site's N and P totals, the NN catchments the
boundary meets, and the levy from the EDP's charging schedule. Provenance, the nutrient split
and reasons stay in the stored result. A site without a levy (refused, excluded, out of
scope) has no body at all: the job fails instead (``nrf.domain.quote_refusal``). The schema,
transcribed, is ``nrf/schemas/backend-quote-patch.schema.json``.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from nrf.domain.quote_refusal import matched_label
from nrf.domain.results import LevyPricing, SiteAssessment
from nrf.domain.rounding import round2

EDP_TYPE = "NUTRIENT"
IMPACT_UNIT = "mg/I TP"  # the unit string Defra's backend accepts, exactly as it spells it
# Defra's bands, upper-inclusive: <= 0.25 is band 1, <= 2 band 2, <= 5 band 3, above band 4.
BAND_UPPER_BOUNDS = ((0.25, 1), (2.0, 2), (5.0, 3))
TOP_BAND = 4


def band(amount: float) -> int:
    """Defra's band (1-4) for an amount already rounded to 2 dp, as its mapper bands it."""
    for upper, number in BAND_UPPER_BOUNDS:
        if amount <= upper:
            return number
    return TOP_BAND


def patch_amount(total: float) -> float:
    """An N or P total to 2 dp as Defra's mapper rounds it: Python's ``round`` on the float
    (half to even on the binary value: 0.015 -> 0.01, 2.675 -> 2.67), not the numpy-style
    ``round2`` of the IAT figures (0.015 -> 0.02), whose conformance stays as it is."""
    return round(total, 2)


def _measurement(total: float) -> dict[str, Any]:
    amount = patch_amount(total)
    number = band(amount)
    # One figure, so the backend's range is that band at both ends.
    return {"amount": amount, "unit": IMPACT_UNIT, "band": {"min": number, "max": number}}


def _money(value: Decimal) -> float:
    # Already to the penny: the float's shortest text is those same two places.
    return float(value)


def model_version(calculator_version: str) -> int:
    """The backend's integer ``modelVersion``: the number that ends the calculator version."""
    match = re.search(r"([0-9]+)$", calculator_version)
    if match is None or int(match.group(1)) < 1:
        raise ValueError(f"calculator version {calculator_version!r} ends in no number >= 1")
    return int(match.group(1))


def _levy(pricing: LevyPricing) -> dict[str, Any]:
    """The backend prints ``amountExcludingVat`` in the quote email as the provisional levy,
    so it is the un-indexed amount, as Defra's mapper sends it (and ``baseAmount`` too); the
    indexed amount is ``amountInflationAdjusted``."""
    return {
        "amountExcludingVat": _money(pricing.base_amount),
        "amountInflationAdjusted": _money(pricing.amount_inflation_adjusted),
        "baseAmount": _money(pricing.base_amount),
        "modelVersion": model_version(pricing.calculator_version),
    }


def _unrounded(rounded: float, exact: float | None) -> float:
    return rounded if exact is None else exact  # a result stored before exact totals were


def quote_update(site: SiteAssessment, labels: tuple[str, ...] = ()) -> dict[str, Any]:
    """The PATCH body for a one-development job whose levy was priced; ``labels`` are the
    EDP names the message carried (``edpName`` is sent in the message's own spelling)."""
    pricing = site.pricing
    if pricing is None:
        raise ValueError("a site without a priced levy is never reported to the backend")
    entry = {
        "edpId": pricing.edp_id,
        "edpName": matched_label(labels, pricing.edp_name),
        "edpType": EDP_TYPE,
        "impact": {
            "nitrogenTotal": _measurement(_unrounded(site.n_total, site.n_total_unrounded)),
            "phosphorusTotal": _measurement(_unrounded(site.p_total, site.p_total_unrounded)),
        },
        "catchments": [
            {
                "label": c.label,
                "catchmentId": c.catchment_id or None,
                "catchmentOverlapPercentage": round2(c.overlap_percentage),
            }
            for c in site.catchment_overlaps
        ],
        "levyGbp": _levy(pricing),
    }
    return {"edps": [entry]}


def quote_update_json(site: SiteAssessment, labels: tuple[str, ...] = ()) -> str:
    """The body's exact text, made once and stored with the job before the first attempt."""
    return json.dumps(quote_update(site, labels), sort_keys=True, allow_nan=False)
