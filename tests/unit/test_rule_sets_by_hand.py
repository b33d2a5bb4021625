"""Every rule of every rule set, each with a figure worked by hand in the comment beside it.

One example per (rule, rule set), so changing any one parameter of any one rule set fails
exactly the examples that depend on it; then one whole site assessed under each rule set, with
every figure of the result (and its levy) worked by hand.
"""

from __future__ import annotations

import pytest
from shapely.geometry import box

from nrf.domain.assessment import assess_site
from nrf.domain.errors import InvalidInput
from nrf.domain.land_use import greenspace_applies, piece_uplift, post_suds
from nrf.domain.model import Boundary, CoefficientPolygon, Development, NnCatchment, Zone
from nrf.domain.results import OutOfScopeSite, SiteAssessment
from nrf.domain.rounding import round2
from nrf.domain.rules import RULE_SETS, RuleSet, rule_set_named
from nrf.domain.wastewater import load_kg_per_year, total_with_buffer
from support.reference import InMemoryBoundaryData, permit, rates

SEPT, OCT, APRIL = (rule_set_named(n) for n in ("iat-2025-09", "iat-2025-10", "iat-2026-04"))


def test_there_are_exactly_these_three_rule_sets() -> None:
    assert sorted(RULE_SETS) == ["iat-2025-09", "iat-2025-10", "iat-2026-04"]


def test_no_name_means_april_2026_and_an_unknown_name_is_bad_input() -> None:
    assert rule_set_named(None) is APRIL
    with pytest.raises(InvalidInput) as caught:
        rule_set_named("iat-2024-01")
    assert caught.value.codes == ["unknown_rule_set"]


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        # 1000 L/day × 365.25 days = 365 250 L/year; × 10 mg/L / 1e6 = 3.6525 kg at 100 %.
        (SEPT, 3.6525),
        # October: permit loads at 90 %: 3.6525 × 0.9 = 3.28725 kg.
        (OCT, 3.28725),
        # April 2026: also 90 %: 3.28725 kg.
        (APRIL, 3.28725),
    ],
    ids=["iat-2025-09", "iat-2025-10", "iat-2026-04"],
)
def test_wastewater_operating_factor(rules, expected) -> None:
    assert load_kg_per_year(1000.0, 10.0, rules) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("rules", "dwellings", "expected"),
    [
        # September: SuDS on every site, 25 % of |uplift| off: 10.00 − 2.50 = 7.50.
        (SEPT, 1, 7.5),
        (SEPT, 49, 7.5),
        # October: the same, SuDS on every site.
        (OCT, 1, 7.5),
        (OCT, 49, 7.5),
        # April 2026: SuDS only from 50 dwellings: 49 keeps 10.00, 50 gets 7.50.
        (APRIL, 49, 10.0),
        (APRIL, 50, 7.5),
    ],
)
def test_suds_threshold_and_removal(rules, dwellings, expected) -> None:
    assert post_suds(10.0, dwellings, rules) == expected


@pytest.mark.parametrize("rules", [SEPT, OCT, APRIL], ids=lambda r: r.name)
def test_suds_makes_a_negative_uplift_more_negative(rules) -> None:
    # −8.00 − |−8.00| × 0.25 = −10.00, under every rule set (at 60 dwellings SuDS applies to all).
    assert post_suds(-8.0, 60, rules) == -10.0


@pytest.mark.parametrize(
    ("rules", "area_ha", "applies"),
    [
        # September and October: no greenspace adjustment, however large the site.
        (SEPT, 5.0, False),
        (OCT, 5.0, False),
        (OCT, 1.0, False),
        # April 2026: greenspace from 1 ha (the area already rounded to 2 dp).
        (APRIL, 0.99, False),
        (APRIL, 1.0, True),
    ],
)
def test_greenspace_switch_and_threshold(rules, area_ha, applies) -> None:
    assert greenspace_applies(area_ha, rules) is applies


def test_greenspace_adjustment_of_april_2026() -> None:
    # N: resi' = 0.8 × 20 + 0.2 × 3.0 = 16.6; (16.6 − 5.0) × 2.0 ha = 23.2.
    assert piece_uplift(5.0, 20.0, APRIL.greenspace_n_coeff, 2.0, True, APRIL) == 23.2
    # P: resi' = 0.8 × 1.0 + 0.2 × 0.2 = 0.84; (0.84 − 0.30) × 2.0 ha = 1.08.
    assert piece_uplift(0.3, 1.0, APRIL.greenspace_p_coeff, 2.0, True, APRIL) == 1.08


@pytest.mark.parametrize("rules", [SEPT, OCT, APRIL], ids=lambda r: r.name)
def test_buffer_of_twenty_percent_always_adds(rules) -> None:
    # B = 10 + 5 = 15; 15 + 0.2 × 15 = 18.00.
    assert round2(total_with_buffer(10.0, 5.0, rules)) == 18.0
    # B = −20 + 5 = −15; −15 + 0.2 × 15 = −12.00 (the buffer adds even to a reduction).
    assert round2(total_with_buffer(-20.0, 5.0, rules)) == -12.0


@pytest.mark.parametrize(
    ("rules", "keeps"),
    [(SEPT, True), (OCT, False), (APRIL, False)],
    ids=["iat-2025-09", "iat-2025-10", "iat-2026-04"],
)
def test_package_plant_fallback_outside_catchments(rules, keeps) -> None:
    # Works 141, "Package Treatment Plant default", stands in where no works is mapped;
    # only September keeps such a site in scope outside every catchment.
    assert (rules.fallback_wwtw_id, rules.fallback_wwtw_name) == (
        141,
        "Package Treatment Plant default",
    )
    assert rules.keep_fallback_wwtw_outside_catchments is keeps


# ---- one whole site under each rule set: every figure of assess_site worked by hand ----------

X0, Y0 = 600_000.0, 300_000.0


def _strip() -> InMemoryBoundaryData:
    """One NN catchment (Wensum, EDP 1) over works 1065; nothing mapped south of Y0."""
    return InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            )
        ],
        wwtw=[Zone(box(X0, Y0, X0 + 1000, Y0 + 1000), 1065)],
        sub=[Zone(box(X0 - 5000, Y0 - 5000, X0 + 5000, Y0 + 5000), "Wensum")],
        coefficients=[
            CoefficientPolygon(
                geometry=box(X0 - 5000, Y0 - 5000, X0 + 5000, Y0 + 5000),
                lu_curr_n_coeff=5.5,
                lu_curr_p_coeff=0.24,
                n_resi_coeff=12.0,
                p_resi_coeff=0.5,
            )
        ],
        permits=[
            permit(1065, "Sculthorpe", n=(27.0, 10.0), p=(1.0, 1.0), subcatchment="Wensum"),
            permit(141, "Package Treatment Plant default", n=(25.0, 25.0), p=(4.5, 4.5)),
        ],
        rates_table=rates(catchments={"River Wensum SAC": (2.4, 120.0)}),
    )


def _assess(site: Boundary, dwellings: int, rules: RuleSet) -> SiteAssessment | OutOfScopeSite:
    data = _strip()
    development = Development(
        rlb_id=1,
        id="s",
        name="s",
        dwelling_category="housing",
        source="t",
        dwellings=dwellings,
        boundary=site,
    )
    return assess_site(development, data.reference_for(site), data.lookups(), rules)


# Common to all three: a 200 m x 100 m = 2.00 ha site inside the Wensum, 40 dwellings.
# Litres: 40 x 2.4 x 120 = 11,520 l/day; x 365.25 = 4,207,680 l/year.
# Loads at 100 %: N 27 mg/l 4,207,680 x 27e-6 = 113.60736, N 10 mg/l 42.0768, P 1 mg/l 4.20768;
# at 90 %: 102.246624, 37.86912 and 3.786912.
# Levy: N x £100 + P x £1,000; shares 5 %, 10 %, 3 %; mitigation = levy - the three.
WHOLE_SITE = [
    pytest.param(
        SEPT,
        {
            # No greenspace: N (12 - 5.5) x 2 ha = 13.00; P (0.5 - 0.24) x 2 = 0.52.
            "n_lu_uplift": 13.0,
            "p_lu_uplift": 0.52,
            # SuDS on every site: 13.00 - 3.25 = 9.75; 0.52 - 0.13 = 0.39.
            "n_lu_post_suds": 9.75,
            "p_lu_post_suds": 0.39,
            "n_wwtw_temp": 113.61,  # 113.60736
            "n_wwtw_perm": 42.08,  # 42.0768
            "p_wwtw_temp": 4.21,  # 4.20768
            "p_wwtw_perm": 4.21,
            "n_total": 62.19,  # (9.75 + 42.0768) x 1.2 = 62.19216
            "p_total": 5.52,  # (0.39 + 4.20768) x 1.2 = 5.517216
        },
        # 62.19 x 100 + 5.52 x 1000 = 6,219 + 5,520 = 11,739.00; 586.95, 1,173.90, 352.17;
        # 11,739.00 - 586.95 - 1,173.90 - 352.17 = 9,625.98.
        ("11739.00", "586.95", "1173.90", "352.17", "9625.98"),
        id="iat-2025-09",
    ),
    pytest.param(
        OCT,
        {
            # No greenspace and SuDS everywhere, as in September: 13.00 / 0.52 -> 9.75 / 0.39.
            "n_lu_uplift": 13.0,
            "p_lu_uplift": 0.52,
            "n_lu_post_suds": 9.75,
            "p_lu_post_suds": 0.39,
            "n_wwtw_temp": 102.25,  # 102.246624
            "n_wwtw_perm": 37.87,  # 37.86912
            "p_wwtw_temp": 3.79,  # 3.786912
            "p_wwtw_perm": 3.79,
            "n_total": 57.14,  # (9.75 + 37.86912) x 1.2 = 57.142944
            "p_total": 5.01,  # (0.39 + 3.786912) x 1.2 = 5.0122944
        },
        # 57.14 x 100 + 5.01 x 1000 = 5,714 + 5,010 = 10,724.00; 536.20, 1,072.40, 321.72;
        # 10,724.00 - 536.20 - 1,072.40 - 321.72 = 8,793.68.
        ("10724.00", "536.20", "1072.40", "321.72", "8793.68"),
        id="iat-2025-10",
    ),
    pytest.param(
        APRIL,
        {
            # Greenspace (2.00 ha >= 1): N resi' 0.8 x 12 + 0.2 x 3.0 = 10.2, (10.2 - 5.5) x 2
            # = 9.40; P resi' 0.8 x 0.5 + 0.2 x 0.2 = 0.44, (0.44 - 0.24) x 2 = 0.40.
            "n_lu_uplift": 9.4,
            "p_lu_uplift": 0.4,
            # No SuDS: 40 dwellings < 50.
            "n_lu_post_suds": 9.4,
            "p_lu_post_suds": 0.4,
            "n_wwtw_temp": 102.25,  # 102.246624
            "n_wwtw_perm": 37.87,  # 37.86912
            "p_wwtw_temp": 3.79,  # 3.786912
            "p_wwtw_perm": 3.79,
            "n_total": 56.72,  # (9.40 + 37.86912) x 1.2 = 56.722944
            "p_total": 5.02,  # (0.40 + 3.786912) x 1.2 = 5.0242944
        },
        # 56.72 x 100 + 5.02 x 1000 = 5,672 + 5,020 = 10,692.00; 534.60, 1,069.20, 320.76;
        # 10,692.00 - 534.60 - 1,069.20 - 320.76 = 8,767.44.
        ("10692.00", "534.60", "1069.20", "320.76", "8767.44"),
        id="iat-2026-04",
    ),
]


@pytest.mark.parametrize(("rules", "figures", "levy"), WHOLE_SITE)
def test_one_site_under_each_rule_set(
    rules: RuleSet, figures: dict[str, float], levy: tuple[str, ...]
) -> None:
    result = _assess(box(X0 + 100, Y0 + 100, X0 + 300, Y0 + 200), 40, rules)
    assert isinstance(result, SiteAssessment)
    assert (result.dev_area_ha, result.area_in_nn_catchment_ha) == (2.0, 2.0)
    assert (result.occupancy_rate, result.water_usage_l_per_person_day) == (2.4, 120.0)
    assert result.litres_used == 11_520.0
    assert {name: getattr(result, name) for name in figures} == figures
    # One catchment: its share is the whole site.
    (share,) = result.catchments
    assert (share.n2k_site_name, share.lowest_oid, share.area_ha) == ("River Wensum SAC", "1", 2.0)
    shared = (
        "n_lu_post_suds",
        "p_lu_post_suds",
        "n_wwtw_perm",
        "p_wwtw_perm",
        "n_total",
        "p_total",
    )
    assert {k: getattr(share, k) for k in shared} == {k: figures[k] for k in shared}


@pytest.mark.parametrize(
    ("width_m", "dev_area_ha", "n_uplift", "p_uplift"),
    [
        # 99.6 m x 100 m = 0.996 ha, rounded to 1.00 ha first, so greenspace applies:
        # N (10.2 - 5.5) x 0.996 = 4.6812 -> 4.68; P (0.44 - 0.24) x 0.996 = 0.1992 -> 0.20.
        (99.6, 1.0, 4.68, 0.2),
        # 99.4 m x 100 m = 0.994 ha -> 0.99 ha: no greenspace:
        # N (12 - 5.5) x 0.994 = 6.461 -> 6.46; P (0.5 - 0.24) x 0.994 = 0.25844 -> 0.26.
        (99.4, 0.99, 6.46, 0.26),
    ],
)
def test_april_2026_greenspace_threshold_uses_the_rounded_site_area(
    width_m: float, dev_area_ha: float, n_uplift: float, p_uplift: float
) -> None:
    site = box(X0 + 100, Y0 + 100, X0 + 100 + width_m, Y0 + 200)
    result = _assess(site, 10, APRIL)
    assert isinstance(result, SiteAssessment)
    assert result.dev_area_ha == dev_area_ha
    assert (result.n_lu_uplift, result.p_lu_uplift) == (n_uplift, p_uplift)


@pytest.mark.parametrize(
    ("rules", "kept"),
    [(SEPT, True), (OCT, False), (APRIL, False)],
    ids=["iat-2025-09", "iat-2025-10", "iat-2026-04"],
)
def test_a_site_outside_every_catchment_on_the_package_plant(rules: RuleSet, kept: bool) -> None:
    # South of the strip: no works catchment (so works 141) and no NN catchment.
    result = _assess(box(X0 + 100, Y0 - 300, X0 + 300, Y0 - 200), 40, rules)
    if not kept:
        assert isinstance(result, OutOfScopeSite)
        assert result.reason_code == "outside_catchments_package_treatment_plant"
        return
    # September keeps it: default rates 40 x 2.4 x 120 = 11,520 l/day -> 4,207,680 l/year;
    # at 100 %: N 25 mg/l 105.192 -> 105.19, P 4.5 mg/l 18.93456 -> 18.93;
    # no land use, so totals 105.192 x 1.2 = 126.2304 -> 126.23, 18.93456 x 1.2 = 22.721472.
    assert isinstance(result, SiteAssessment)
    assert (result.majority_wwtw_id, result.wwtw_subcatchment) == (141, "Wensum")
    assert (result.n_wwtw_temp, result.n_wwtw_perm) == (105.19, 105.19)
    assert (result.p_wwtw_temp, result.p_wwtw_perm) == (18.93, 18.93)
    assert (result.n_total, result.p_total) == (126.23, 22.72)
    assert result.catchments == ()
