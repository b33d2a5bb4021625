"""Whole-site assessments against in-memory reference data, worked by hand."""

from shapely.geometry import box

from nrf.domain.assessment import AssessDevelopments, assess_site
from nrf.domain.model import CoefficientPolygon, Development, NnCatchment, Zone
from nrf.domain.results import OutOfScopeSite, SiteAssessment
from nrf.domain.rules import rule_set_named
from support.reference import QUOTE_DATE, InMemoryBoundaryData, permit, rates

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
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            ),
            NnCatchment(
                geometry=box(X0 + 1000, Y0, X0 + 2000, Y0 + 1000),
                n2k_site_name="The Broads SAC",
                edp_id="2",
            ),
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
    assert result.n_lu_uplift == -125.57  # (8.6 - 33.714) x 5.00 ha = -25.114 x 5 = -125.57
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
    # Land use (2 ha, greenspace, 10 dwellings so no SuDS): 4.63 and 0.2 per ha, 1 ha each
    # side: N 4.63 + 4.63 = 9.26, P 0.40. Wastewater: 2760 x 365.25 = 1,008,090 l/year;
    # N 10 mg/l x 0.9 = 9.07281 -> 9.07, P 1 mg/l 0.907281 -> 0.91.
    assert (result.n_lu_uplift, result.p_lu_uplift) == (9.26, 0.4)
    assert (result.n_wwtw_perm, result.p_wwtw_perm) == (9.07, 0.91)
    # Totals: (9.26 + 9.07281) x 1.2 = 21.999372 -> 22.00; (0.40 + 0.907281) x 1.2 = 1.5687372.
    assert (result.n_total, result.p_total) == (22.0, 1.57)
    # Each side: N (4.63 + 4.536405) x 1.2 = 10.999686 -> 11.00 and 11.00 (= 22.00);
    # P (0.20 + 0.4536405) x 1.2 = 0.7843686: 0.78 + 0.78 = 1.56, and the penny still owed
    # goes to the first of the equal remainders, the Wensum: 0.79 and 0.78.
    # Wastewater 9.07: 4.536405 each, 4.53 + 4.53 = 9.06, the odd penny to the Wensum.
    assert (wensum.n_total, broads.n_total) == (11.0, 11.0)
    assert (wensum.p_total, broads.p_total) == (0.79, 0.78)
    assert (wensum.n_wwtw_perm, broads.n_wwtw_perm) == (4.54, 4.53)


def test_site_three_quarters_in_one_catchment_is_split_three_to_one() -> None:
    # 400 m x 100 m = 4 ha across x = X0 + 1000: 3 ha in the Wensum, 1 ha in the Broads.
    site = box(X0 + 700, Y0 + 100, X0 + 1100, Y0 + 200)
    data = repo()
    result = assess_site(dev(site, 60), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, SiteAssessment)
    # Land use (greenspace: 4.63 N and 0.2 P per ha): N 13.89 + 4.63 = 18.52, P 0.6 + 0.2 = 0.80;
    # 60 dwellings, so SuDS: N 18.52 - 4.63 = 13.89, P 0.80 - 0.20 = 0.60.
    assert (result.n_lu_uplift, result.p_lu_uplift) == (18.52, 0.8)
    assert (result.n_lu_post_suds, result.p_lu_post_suds) == (13.89, 0.6)
    # Rates weighted by area: (3 x 120 + 1 x 110) / 4 = 117.5 l; 60 x 2.4 x 117.5 = 16,920 l/day;
    # x 365.25 = 6,180,030 l/year; x 0.9: N 10 mg/l 55.62027, 27 mg/l 150.174729, P 5.562027.
    assert (result.water_usage_l_per_person_day, result.litres_used) == (117.5, 16920.0)
    assert (result.n_wwtw_temp, result.n_wwtw_perm) == (150.17, 55.62)
    assert (result.p_wwtw_temp, result.p_wwtw_perm) == (5.56, 5.56)
    # (13.89 + 55.62027) x 1.2 = 83.412324 -> 83.41; (0.60 + 5.562027) x 1.2 = 7.3944324 -> 7.39.
    assert (result.n_total, result.p_total) == (83.41, 7.39)
    wensum, broads = result.catchments
    assert (wensum.area_ha, broads.area_ha) == (3.0, 1.0)
    # Post-SuDS by piece x 0.75: Wensum 13.89 -> 10.4175, Broads 4.63 -> 3.4725; 10.41 + 3.47
    # = 13.88, the penny to the larger remainder (.75): 10.42 and 3.47. P 0.45 and 0.15.
    assert (wensum.n_lu_post_suds, broads.n_lu_post_suds) == (10.42, 3.47)
    assert (wensum.p_lu_post_suds, broads.p_lu_post_suds) == (0.45, 0.15)
    # Wastewater by area, 3/4 and 1/4 of 55.62027: 41.7152025 and 13.9050675; 41.71 + 13.90 =
    # 55.61 of 55.62, the penny to the larger remainder (.52 over .507): 41.72 and 13.90.
    # P 5.562027: 4.1715202 and 1.3905068 -> 4.17 and 1.39 (= 5.56).
    assert (wensum.n_wwtw_perm, broads.n_wwtw_perm) == (41.72, 13.9)
    assert (wensum.p_wwtw_perm, broads.p_wwtw_perm) == (4.17, 1.39)
    # Totals x 1.2: N (10.4175 + 41.7152025) x 1.2 = 62.559243, (3.4725 + 13.9050675) x 1.2 =
    # 20.853081; 62.55 + 20.85 = 83.40, the penny to the Wensum (.92): 62.56 and 20.85.
    assert (wensum.n_total, broads.n_total) == (62.56, 20.85)
    # P (0.45 + 4.1715202) x 1.2 = 5.5458243, (0.15 + 1.3905068) x 1.2 = 1.8486081;
    # 5.54 + 1.84 = 7.38, the penny to the Broads (.86 over .58): 5.54 and 1.85.
    assert (wensum.p_total, broads.p_total) == (5.54, 1.85)


def test_a_coefficient_polygon_without_n_values_adds_area_but_no_n_uplift() -> None:
    site = box(X0 + 100, Y0 + 100, X0 + 300, Y0 + 200)  # 2 ha: 1 ha on each polygon
    full = CoefficientPolygon(
        geometry=box(X0, Y0, X0 + 200, Y0 + 1000),
        lu_curr_n_coeff=5.57,
        lu_curr_p_coeff=0.24,
        n_resi_coeff=12.0,
        p_resi_coeff=0.5,
    )
    no_n = CoefficientPolygon(
        geometry=box(X0 + 200, Y0, X0 + 1000, Y0 + 1000),
        lu_curr_n_coeff=None,
        lu_curr_p_coeff=0.24,
        n_resi_coeff=None,
        p_resi_coeff=0.5,
    )
    data = repo([full, no_n])
    result = assess_site(dev(site, 10), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, SiteAssessment)
    # Both hectares count as in the catchment; N uplift only from the first: 4.63 x 1 ha;
    # P from both: 0.2 x 2 ha = 0.40 (greenspace, 2 ha; no SuDS under 50 dwellings).
    assert result.area_in_nn_catchment_ha == 2.0
    assert (result.n_lu_uplift, result.p_lu_uplift) == (4.63, 0.4)
    # 10 x 2.4 x 120 = 2880 l/day x 365.25 = 1,051,920 l/year; x 0.9: N 10 mg/l 9.46728,
    # P 1 mg/l 0.946728. (4.63 + 9.46728) x 1.2 = 16.916736; (0.40 + 0.946728) x 1.2 = 1.6160736.
    assert (result.n_wwtw_perm, result.p_wwtw_perm) == (9.47, 0.95)
    assert (result.n_total, result.p_total) == (16.92, 1.62)


def test_outside_catchments_in_a_works_with_a_permit_row_is_kept_for_its_wastewater() -> None:
    # Works 1065 reaches 1 km south of the Wensum catchment; the site sits in that part.
    data = InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            )
        ],
        wwtw=[Zone(box(X0, Y0 - 1000, X0 + 1000, Y0 + 1000), 1065)],
        permits=[permit(1065, "Sculthorpe", n=(27.0, 10.0), p=(1.0, 1.0), subcatchment="Wensum")],
    )
    site = box(X0 + 100, Y0 - 300, X0 + 200, Y0 - 200)
    result = assess_site(dev(site, 10), data.reference_for(site), data.lookups(), NEW)
    assert isinstance(result, SiteAssessment)
    assert (result.area_in_nn_catchment_ha, result.n_lu_uplift, result.n_lu_post_suds) == (
        None,
        None,
        None,
    )
    assert (result.majority_wwtw_id, result.rates_source, result.litres_used) == (
        1065,
        "default",
        2880.0,  # 10 x 2.4 x 120, the default row: no catchment to take rates from
    )
    # 2880 x 365.25 = 1,051,920 l/year x 0.9: N 27 mg/l 25.561656, 10 mg/l 9.46728; P 0.946728.
    assert (result.n_wwtw_temp, result.n_wwtw_perm, result.p_wwtw_perm) == (25.56, 9.47, 0.95)
    # No land use: totals 9.46728 x 1.2 = 11.360736 -> 11.36; 0.946728 x 1.2 = 1.1360736 -> 1.14.
    assert (result.n_total, result.p_total) == (11.36, 1.14)
    # No catchment.
    assert result.catchments == ()


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


def test_a_works_whose_permit_row_is_a_package_plant_counts_as_the_fallback() -> None:
    # Works 3000 is mapped, but its permit row is the package plant's (name in other letter case).
    data = InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            )
        ],
        wwtw=[Zone(box(X0, Y0 - 1000, X0 + 1000, Y0), 3000)],
        permits=[permit(3000, "PACKAGE treatment plant Default", n=(25.0, 25.0), p=(4.5, 4.5))],
    )
    site = box(X0 + 100, Y0 - 300, X0 + 200, Y0 - 200)  # in works 3000, in no NN catchment
    ref, lookups = data.reference_for(site), data.lookups()
    out = assess_site(dev(site, 10), ref, lookups, NEW)
    assert isinstance(out, OutOfScopeSite)
    assert out.reason_code == "outside_catchments_package_treatment_plant"
    kept = assess_site(dev(site, 10), ref, lookups, SEPT)
    assert isinstance(kept, SiteAssessment)
    # 10 x 2.4 x 120 = 2880 l/day x 365.25 x 25e-6 x 1.0 = 26.298 -> 26.30; x 1.2 = 31.5576.
    assert (kept.majority_wwtw_id, kept.n_wwtw_perm, kept.n_total) == (3000, 26.3, 31.56)


def test_batch_gives_each_site_the_answer_it_gets_alone() -> None:
    sites = [
        box(X0 + 100, Y0 + 100, X0 + 405, Y0 + 200),
        box(X0 + 900, Y0 + 100, X0 + 1100, Y0 + 200),
        box(X0 + 3000, Y0 - 3000, X0 + 3100, Y0 - 2900),
    ]
    devs = [dev(s, 10 * (i + 1), rlb_id=i + 1) for i, s in enumerate(sites)]
    assess = AssessDevelopments(repo())
    batch = assess(devs, NEW, QUOTE_DATE)
    alone = [assess([d], NEW, QUOTE_DATE) for d in devs]
    alone_sites = [s for run in alone for s in run.sites]
    assert batch.sites == tuple(alone_sites)
    assert len(batch.out_of_scope) == 1  # the third: package plant, no catchment, iat-2026-04
    assert batch.provenance.rule_set == "iat-2026-04"
