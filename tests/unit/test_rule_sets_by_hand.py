"""Every rule of every rule set, each with a figure worked by hand in the comment beside it.

One example per (rule, rule set), so changing any one parameter of any one rule set fails
exactly the examples that depend on it.
"""

from __future__ import annotations

import pytest

from nrf.domain.land_use import greenspace_applies, piece_uplift, post_suds
from nrf.domain.rounding import round2
from nrf.domain.rules import RULE_SETS, rule_set_named
from nrf.domain.wastewater import load_kg_per_year, total_with_buffer

SEPT, OCT, APRIL = (rule_set_named(n) for n in ("iat-2025-09", "iat-2025-10", "iat-2026-04"))


def test_there_are_exactly_these_three_rule_sets() -> None:
    assert sorted(RULE_SETS) == ["iat-2025-09", "iat-2025-10", "iat-2026-04"]


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
