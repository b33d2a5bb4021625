"""Whole-site assessments against in-memory reference data, worked by hand."""

from decimal import Decimal

from shapely.geometry import box

from nrf.domain.assessment import AssessDevelopments, assess_site
from nrf.domain.model import CoefficientPolygon, Development, NnCatchment, Zone
from nrf.domain.results import OutOfScopeSite, SiteAssessment
from nrf.domain.rules import rule_set_named
from support.reference import InMemoryBoundaryData, levy_rate, permit, rates

NEW = rule_set_named("iat-2026-04")
SEPT = rule_set_named("iat-2025-09")
X0, Y0 = 600_000.0, 300_000.0


def dev(boundary, dwellings: int = 19, category: str = "allocation", rlb_id: int = 1):
    return Development(
        rlb_id=rlb_id,
        id=f"site-{rlb_id}",
        name="Test site",
        dwelling_category=category,
        source="test",
        dwellings=dwellings,
        boundary=boundary,
    )


def repo(coefficients: list[CoefficientPolygon] | None = None) -> InMemoryBoundaryData:
    """A 2 km strip: Wensum (EDP 1) on the west, Broads (EDP 2) on the east, nothing south."""
    return InMemoryBoundaryData(
        nn=[
            NnCatchment(box(X0, Y0, X0 + 1000, Y0 + 1000), "River Wensum SAC", "1"),
            NnCatchment(box(X0 + 1000, Y0, X0 + 2000, Y0 + 1000), "The Broads SAC", "2"),
        ],
        wwtw=[
            Zone(box(X0, Y0, X0 + 2000, Y0 + 1000), 1065),
            Zone(box(X0, Y0 - 1000, X0 + 1000, Y0), 2002),  # no permit row
        ],
        lpa=[Zone(box(X0, Y0 - 5000, X0 + 5000, Y0 + 5000), "Breckland")],
        sub=[Zone(box(X0 - 5000, Y0 - 5000, X0 + 5000, Y0 + 5000), "Wensum")],
        coefficients=coefficients
        or [
            # resi' (greenspace) N = 0.8 x 12 + 0.6 = 10.2; uplift per ha = 10.2 - 5.57 = 4.63
            # resi' P = 0.8 x 0.5 + 0.04 = 0.44; uplift per ha = 0.44 - 0.24 = 0.2
            CoefficientPolygon(
                geometry=box(X0 - 5000, Y0 - 5000, X0 + 5000, Y0 + 5000),
                lu_curr_n_coeff=5.57,
                lu_curr_p_coeff=0.24,
                n_resi_coeff=12.0,
                p_resi_coeff=0.5,
            ),
        ],
        permits=[
            permit(1065, "Sculthorpe", n=(27.0, 10.0), p=(1.0, 1.0), subcatchment="Wensum"),
            permit(141, "Package Treatment Plant default", n=(25.0, 25.0), p=(4.5, 4.5)),
        ],
        rates_table=rates(
            catchments={"River Wensum SAC": (2.4, 120.0), "The Broads SAC": (2.4, 110.0)},
            categories={"Hotel": (1.0, 240.0)},
        ),
        levy=[levy_rate("1", "River Wensum SAC", "3000.50", "40000", ("0.05", "0.10", "0.03"))],
    )


def test_worked_example_19_dwellings_3_05_ha() -> None:
    site = box(X0 + 100, Y0 + 100, X0 + 405, Y0 + 200)  # 305 m x 100 m = 3.05 ha
    data = repo()
    result = assess_site(dev(site), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, SiteAssessment)
    assert result.dev_area_ha == 3.05
    assert result.area_in_nn_catchment_ha == 3.05
    assert result.nn_catchments == ("River Wensum SAC",)
    assert (result.majority_wwtw_id, result.wwtw_name, result.wwtw_subcatchment) == (
        1065,
        "Sculthorpe",
        "Wensum",
    )
    assert (result.majority_lpa, result.dev_subcatchment) == ("Breckland", "Wensum")
    # 4.63 x 3.05 = 14.1215 -> 14.12; 19 dwellings < 50 so no SuDS
    assert result.n_lu_uplift == 14.12
    assert result.n_lu_post_suds == 14.12
    assert result.p_lu_uplift == 0.61  # 0.2 x 3.05
    assert result.litres_used == 5472.0
    assert result.n_wwtw_perm == 17.99  # 5472 x 365.25 x 10e-6 x 0.9 = 17.987832
    assert result.n_wwtw_temp == 48.57  # 27 mg/l: 48.5671464
    assert result.p_wwtw_perm == 1.8  # 1.7987832
    assert result.n_total == 38.53  # (14.12 + 17.987832) x 1.2 = 38.5293984
    assert result.p_total == 2.89  # (0.61 + 1.7987832) x 1.2 = 2.89053984
    # One catchment: it carries the whole site.
    (share,) = result.catchments
    assert (share.n_total, share.p_total, share.area_ha) == (38.53, 2.89, 3.05)
    # Levy: 38.53 x 3000.50 + 2.89 x 40000 = 115609.265 + 115600 = 231209.265 -> 231209.27
    assert result.levy.levy_gbp == Decimal("231209.27")
    assert result.levy.monitoring_gbp == Decimal("11560.46")  # 11560.4635
    assert result.levy.maintenance_gbp == Decimal("23120.93")  # 23120.927
    assert result.levy.admin_gbp == Decimal("6936.28")  # 6936.2781
    assert result.levy.mitigation_gbp == Decimal("189591.60")


def test_worked_example_272_dwellings_negative_uplift_with_suds() -> None:
    # 5.00 ha with N uplift per ha -25.114 (resi 10 -> 8.6 with greenspace, current 33.714)
    site = box(X0 + 100, Y0 + 100, X0 + 600, Y0 + 200)
    data = repo(
        [
            CoefficientPolygon(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                lu_curr_n_coeff=33.714,
                lu_curr_p_coeff=0.24,
                n_resi_coeff=10.0,
                p_resi_coeff=0.5,
            )
        ]
    )
    result = assess_site(dev(site, 272), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, SiteAssessment)
    assert result.n_lu_uplift == -125.57
    assert result.n_lu_post_suds == -156.96  # -125.57 - 31.3925 = -156.9625


def test_site_across_two_catchments_splits_and_adds_up() -> None:
    site = box(X0 + 900, Y0 + 100, X0 + 1100, Y0 + 200)  # 1 ha each side of the line
    data = repo()
    result = assess_site(dev(site, 10), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, SiteAssessment)
    assert result.nn_catchments == ("River Wensum SAC", "The Broads SAC")
    # Rates: area-weighted (120 + 110) / 2 = 115 l; 10 x 2.4 x 115 = 2760 l/day
    assert result.water_usage_l_per_person_day == 115.0
    assert result.litres_used == 2760.0
    wensum, broads = result.catchments
    assert (wensum.area_ha, broads.area_ha) == (1.0, 1.0)
    assert round(wensum.n_total + broads.n_total, 2) == result.n_total
    assert round(wensum.p_total + broads.p_total, 2) == result.p_total
    assert wensum.n_wwtw_perm + broads.n_wwtw_perm == result.n_wwtw_perm
    # Only EDP 1 has a levy rate: the levy is priced on Wensum's share alone.
    by_edp = {e.edp_id: e for e in result.levy_by_edp}
    assert by_edp["2"].quote is None
    assert result.levy == by_edp["1"].quote


def test_dwelling_category_rates_win() -> None:
    site = box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200)
    data = repo()
    result = assess_site(dev(site, 10, "Hotel"), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, SiteAssessment)
    assert result.rates_source == "category"
    assert result.litres_used == 2400.0  # 10 x 1.0 x 240


def test_outside_catchments_with_no_permit_row_is_out_of_scope() -> None:
    site = box(X0 + 100, Y0 - 500, X0 + 200, Y0 - 400)  # in works 2002, which has no permit row
    data = repo()
    result = assess_site(dev(site), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, OutOfScopeSite)
    assert result.reason_code == "outside_catchments_no_wwtw"


def test_package_treatment_plant_outside_catchments_depends_on_rule_set() -> None:
    site = box(X0 + 3000, Y0 - 3000, X0 + 3100, Y0 - 2900)  # no works, no NN catchment
    data = repo()
    ref, lookups = data.reference_for(site), data.lookups()
    out = assess_site(dev(site, 10), ref, lookups, NEW)
    assert isinstance(out, OutOfScopeSite)
    assert out.reason_code == "outside_catchments_package_treatment_plant"
    kept = assess_site(dev(site, 10), ref, lookups, SEPT)
    assert isinstance(kept, SiteAssessment)
    assert kept.majority_wwtw_id == 141
    assert kept.wwtw_subcatchment == "Wensum"  # the site's own subcatchment for the fallback
    assert kept.area_in_nn_catchment_ha is None and kept.n_lu_uplift is None
    # 10 x 2.4 x 120 = 2880 l/day (default rates); x 365.25 x 25e-6 x 1.0 = 26.298
    assert kept.n_wwtw_perm == 26.3
    assert kept.n_total == 31.56  # 26.298 x 1.2 = 31.5576
    assert kept.catchments == ()


def test_batch_gives_each_site_the_answer_it_gets_alone() -> None:
    sites = [
        box(X0 + 100, Y0 + 100, X0 + 405, Y0 + 200),
        box(X0 + 900, Y0 + 100, X0 + 1100, Y0 + 200),
        box(X0 + 3000, Y0 - 3000, X0 + 3100, Y0 - 2900),
    ]
    devs = [dev(s, 10 * (i + 1), rlb_id=i + 1) for i, s in enumerate(sites)]
    assess = AssessDevelopments(repo())
    batch = assess(devs, NEW)
    alone = [assess([d], NEW) for d in devs]
    alone_sites = [s for run in alone for s in run.sites]
    assert batch.sites == tuple(alone_sites)
    assert len(batch.out_of_scope) == 1
    assert batch.provenance.rule_set == "iat-2026-04"
