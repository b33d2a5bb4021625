"""SiteAssessments built by hand for the Defra wire: an EDP, its catchments, a priced levy.

Only the fields the PATCH and the quote checks read are meaningful; the rest are placeholders
(None), so these survive fields being added to or removed from the records (the per-kg levy).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from nrf.domain.results import (
    AssessmentRun,
    CatchmentOverlap,
    EdpOverlap,
    LevyPricing,
    LevyRefusal,
    OutOfScopeSite,
    Provenance,
    SiteAssessment,
    SiteIdentity,
)

PROVENANCE = Provenance(
    rule_set="iat-2026-04",
    bundle_name="synthetic-norfolk",
    bundle_version="2026.1",
    bundle_sha256="ab" * 32,
    synthetic_data=True,
    software_version="0.1.0",
)
IDENTITY = SiteIdentity(
    rlb_id=1,
    id="NRL-000123",
    name="NRL-000123",
    dwelling_category="housing",
    source="web_submission",
    dwellings=10,
)


def _build(cls: Any, **values: Any) -> Any:
    """``cls`` with ``values`` and None for every other field it has."""
    names = [a.name for a in cls.__attrs_attrs__]
    return cls(**{name: values.get(name) for name in names})


NORFOLK = EdpOverlap(edp_id=1, edp_name="Norfolk EDP", overlap_m2=1500.0, overlap_percentage=100.0)
BROADS = EdpOverlap(edp_id=2, edp_name="Broads EDP", overlap_m2=500.0, overlap_percentage=25.0)


def norfolk_pricing(**changes: Any) -> LevyPricing:
    """Norfolk's £2,675.0000 a unit, 10 units, quoted in its own start year (no index).

    Per unit half-up(2675.0000, 2 dp) = 2675.00; x 10 = 26 750.00, both the provisional and
    the inflation-adjusted amount; VAT 20 % = 5 350.00; with VAT 32 100.00.
    """
    fields: dict[str, Any] = {
        "edp_id": 1,
        "edp_name": "Norfolk EDP",
        "units": 10,
        "quote_date": date(2026, 11, 26),
        "edp_start_date": date(2026, 4, 1),
        "charge_valid_from": date(2026, 4, 1),
        "charge_valid_to": date(2027, 3, 31),
        "base_charge_per_unit": Decimal("2675.0000"),
        "per_unit_charge": Decimal("2675.00"),
        "index_rows": (),
        "base_amount": Decimal("26750.00"),
        "amount_inflation_adjusted": Decimal("26750.00"),
        "amount_excluding_vat": Decimal("26750.00"),
        "vat_rate": Decimal("0.20"),
        "vat": Decimal("5350.00"),
        "amount_including_vat": Decimal("32100.00"),
        "calculator_version": "1",
    }
    fields.update(changes)
    return LevyPricing(**fields)


def site(
    *,
    n_total: float = 71.06,
    p_total: float = 1.5,
    edps: tuple[EdpOverlap, ...] = (NORFOLK,),
    catchments: tuple[CatchmentOverlap, ...] = (),
    pricing: LevyPricing | None = None,
    refusal: LevyRefusal | None = None,
    excluded: tuple[str, ...] = (),
    unrounded: tuple[float, float] | None = None,
) -> SiteAssessment:
    """``unrounded``: the N and P totals before rounding (as the assessment keeps them)."""
    exact = unrounded or (None, None)
    return _build(
        SiteAssessment,
        site=IDENTITY,
        catchments=(),
        levy_by_edp=(),
        n_total=n_total,
        p_total=p_total,
        edps=edps,
        catchment_overlaps=catchments,
        excluded_areas=excluded,
        pricing=pricing,
        levy_refusal=refusal,
        n_total_unrounded=exact[0],
        p_total_unrounded=exact[1],
    )


def run_of(*sites: SiteAssessment, out: tuple[OutOfScopeSite, ...] = ()) -> AssessmentRun:
    return _build(
        AssessmentRun, provenance=PROVENANCE, warnings=(), sites=tuple(sites), out_of_scope=out
    )
