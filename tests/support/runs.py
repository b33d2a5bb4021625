"""A small hand-made AssessmentRun for output tests: figures chosen so sums can be done by hand."""

from __future__ import annotations

from decimal import Decimal

from shapely.geometry import MultiPolygon, Polygon, box

from nrf.domain.model import Development
from nrf.domain.results import (
    AssessmentRun,
    EdpLevy,
    LevyQuote,
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


def quote(levy: str, monitoring: str, maintenance: str, admin: str) -> LevyQuote:
    total, shares = Decimal(levy), (Decimal(monitoring), Decimal(maintenance), Decimal(admin))
    return LevyQuote(
        levy_gbp=total,
        monitoring_gbp=shares[0],
        maintenance_gbp=shares[1],
        admin_gbp=shares[2],
        mitigation_gbp=total - sum(shares),
    )


def site(
    rlb_id: int, name: str, n: float, p: float, edps: tuple[EdpLevy, ...], levy: LevyQuote
) -> SiteAssessment:
    identity = SiteIdentity(
        rlb_id=rlb_id,
        id=f"S{rlb_id}",
        name=name,
        dwelling_category="housing",
        source="t",
        dwellings=10,
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
        levy_by_edp=edps,
        levy=levy,
    )


# Site 2 straddles two EDPs: 0.1 + 0.72 kg N (a float sum: 0.8200000000000001 in Python).
WENSUM = EdpLevy(
    edp_id="EDP-W",
    edp_name="Wensum",
    n_total=0.1 + 0.72,
    p_total=0.05,
    quote=quote("100.00", "10.00", "5.00", "2.50"),
)
BROADS = EdpLevy(
    edp_id="EDP-B", edp_name="Broads", n_total=1.5, p_total=0.25, quote=None
)  # no rate for this EDP in the bundle
LONE = EdpLevy(
    edp_id="EDP-W",
    edp_name="Wensum",
    n_total=2.0,
    p_total=0.5,
    quote=quote("50.10", "5.01", "2.51", "1.25"),
)
RUN = AssessmentRun(
    provenance=PROVENANCE,
    sites=(
        site(2, "Richardson’s Yard", 2.32, 0.3, (WENSUM, BROADS), WENSUM.quote),  # type: ignore[arg-type]
        site(1, "Mill Lane", 2.0, 0.5, (LONE,), LONE.quote),  # type: ignore[arg-type]
        site(4, "Outside", -0.25, 0.0, (), quote("0.00", "0.00", "0.00", "0.00")),
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
    # 100.00 + 50.10 = 150.10; 10.00 + 5.01 = 15.01; 5.00 + 2.51 = 7.51; 2.50 + 1.25 = 3.75.
    levy_total=quote("150.10", "15.01", "7.51", "3.75"),
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
    for n in (1, 2, 3, 4)
]
