"""A small hand-made AssessmentRun for output tests: figures chosen so sums can be done by hand."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from shapely.geometry import MultiPolygon, Polygon, box

from nrf.domain.model import Development
from nrf.domain.results import (
    AssessmentRun,
    EdpOverlap,
    IndexRow,
    LevyPricing,
    LevyRefusal,
    OutOfScopeSite,
    Provenance,
    SiteAssessment,
    SiteIdentity,
)

PROVENANCE = Provenance(
    rule_set="iat-2026-04",
    bundle_name="test",
    bundle_version="1",
    bundle_sha256="0" * 64,
    synthetic_data=False,
    software_version="0.1.0",
)


# Norfolk EDP's charge, not indexed (quoted in the EDP's start year): 10 units x £2,675.00
# = £26,750.00 excluding VAT; VAT 20 % = £5,350.00; £32,100.00 including VAT.
NORFOLK = LevyPricing(
    edp_id=1,
    edp_name="Norfolk",
    units=10,
    quote_date=date(2026, 11, 26),
    edp_start_date=date(2026, 4, 1),
    charge_valid_from=date(2026, 4, 1),
    charge_valid_to=date(2027, 3, 31),
    base_charge_per_unit=Decimal("2675.0000"),
    per_unit_charge=Decimal("2675.00"),
    index_rows=(),
    base_amount=Decimal("26750.00"),
    amount_inflation_adjusted=Decimal("26750.00"),
    amount_excluding_vat=Decimal("26750.00"),
    vat_rate=Decimal("0.20"),
    vat=Decimal("5350.00"),
    amount_including_vat=Decimal("32100.00"),
    calculator_version="edp-schedule-1",
)
# Quoted in 2027 for an EDP that started in 2026: 2,675.0000 x 1.0450 / 1.0000 = 2,795.375
# -> £2,795.38 per unit; 3 units = £8,386.14 (provisional 3 x 2,675.00 = £8,025.00);
# VAT 20 % of 8,386.14 = 1,677.228 -> £1,677.23; total £10,063.37.
INDEXED = LevyPricing(
    edp_id=1,
    edp_name="Norfolk",
    units=3,
    quote_date=date(2027, 5, 4),
    edp_start_date=date(2026, 4, 1),
    charge_valid_from=date(2027, 4, 1),
    charge_valid_to=date(2028, 3, 31),
    base_charge_per_unit=Decimal("2675.0000"),
    per_unit_charge=Decimal("2795.38"),
    index_rows=(
        IndexRow(charging_year=2026, cil_index=Decimal("381"), index_factor=Decimal("1.0000")),
        IndexRow(charging_year=2027, cil_index=Decimal("398.1"), index_factor=Decimal("1.0450")),
    ),
    base_amount=Decimal("8025.00"),
    amount_inflation_adjusted=Decimal("8386.14"),
    amount_excluding_vat=Decimal("8386.14"),
    vat_rate=Decimal("0.20"),
    vat=Decimal("1677.23"),
    amount_including_vat=Decimal("10063.37"),
    calculator_version="edp-schedule-1",
)
EXCLUDED = LevyRefusal(
    "excluded_area",
    "the boundary meets excluded areas Broad Fen SSSI buffer; (unnamed): "
    "the route is a Habitats Regulations Assessment",
)
NO_EDP = LevyRefusal("no_edp", "the boundary meets no EDP")
NORFOLK_OVERLAP = EdpOverlap(
    edp_id=1, edp_name="Norfolk", overlap_m2=2500.0, overlap_percentage=100.0
)


def site(
    rlb_id: int,
    name: str,
    n: float,
    p: float,
    *,
    pricing: LevyPricing | None = None,
    refusal: LevyRefusal | None = None,
    excluded: tuple[str, ...] = (),
) -> SiteAssessment:
    identity = SiteIdentity(
        rlb_id=rlb_id,
        id=f"S{rlb_id}",
        name=name,
        dwelling_category="housing",
        source="t",
        dwellings=10 if pricing is None else pricing.units,
    )
    return SiteAssessment(
        site=identity,
        dev_area_ha=1.0,
        area_in_nn_catchment_ha=1.0,
        nn_catchments=(),
        dev_subcatchment=None,
        majority_lpa="X",
        majority_wwtw_id=1,
        wwtw_name=None,
        wwtw_subcatchment=None,
        n_lu_uplift=None,
        p_lu_uplift=None,
        n_lu_post_suds=None,
        p_lu_post_suds=None,
        occupancy_rate=2.4,
        water_usage_l_per_person_day=110.0,
        rates_source="default",
        litres_used=0.0,
        n_conc_2025_2030=None,
        n_conc_2030_on=None,
        p_conc_2025_2030=None,
        p_conc_2030_on=None,
        n_wwtw_temp=0.0,
        p_wwtw_temp=0.0,
        n_wwtw_perm=0.0,
        p_wwtw_perm=0.0,
        n_total=n,
        p_total=p,
        catchments=(),
        edps=(NORFOLK_OVERLAP,) if pricing is not None or excluded else (),
        excluded_areas=excluded,
        pricing=pricing,
        levy_refusal=refusal,
    )


RUN = AssessmentRun(
    provenance=PROVENANCE,
    sites=(
        site(
            2,
            "Richardson’s Yard",
            2.32,
            0.3,
            refusal=EXCLUDED,
            excluded=("Broad Fen SSSI buffer", ""),
        ),
        site(1, "Mill Lane", 2.0, 0.5, pricing=NORFOLK),
        site(
            4,
            "Outside",
            -0.25,
            0.0,
            refusal=NO_EDP,
        ),
        site(5, "Later Phase", 1.0, 0.1, pricing=INDEXED),
    ),
    out_of_scope=(
        OutOfScopeSite(
            SiteIdentity(
                rlb_id=3, id="S3", name="Barn", dwelling_category="housing", source="t", dwellings=0
            ),
            "no_dwellings",
            "why",
        ),
    ),
    # The two priced sites: Mill Lane £26,750.00 + Later Phase £8,386.14 = £35,136.14.
    levy_total_excluding_vat=Decimal("35136.14"),
)


# Boundaries for the four sites: site 3 a two-part MultiPolygon, the rest plain squares.
def _boundary(n: int) -> Polygon | MultiPolygon:
    if n == 3:
        return MultiPolygon([box(0, 0, 10, 10), box(20, 0, 30, 10)])
    return box(100 * n, 0, 100 * n + 50, 50)


DEVELOPMENTS = [
    Development(
        rlb_id=n,
        id=f"S{n}",
        name="x",
        dwelling_category="housing",
        source="t",
        dwellings=10,
        boundary=_boundary(n),
    )
    for n in (1, 2, 3, 4, 5)
]
