"""Wastewater rates and loads, with the issue's worked figures."""

from nrf.domain.rounding import round2
from nrf.domain.rules import rule_set_named
from nrf.domain.wastewater import (
    litres_per_day,
    load_kg_per_year,
    rates_for,
    total_with_buffer,
)
from support.reference import permit, rates

NEW = rule_set_named("iat-2026-04")
SEPT = rule_set_named("iat-2025-09")
TABLE = rates(
    catchments={"River Wensum SAC": (2.4, 120.0), "The Broads SAC": (2.4, 110.0)},
    categories={"Hotel": (1.0, 240.0), "Student Accommodation": (1.0, 120.0)},
    default=(2.5, 130.0),
)


def test_worked_example_19_dwellings() -> None:
    rate = rates_for("allocation", {"River Wensum SAC": 3.05}, TABLE).rate
    litres = litres_per_day(19, rate)
    assert litres == 5472.0  # 19 x 2.4 x 120
    n_perm = load_kg_per_year(litres, 10.0, NEW)  # 5472 x 365.25 x 10 / 1e6 x 0.9 = 17.987832
    assert abs(n_perm - 17.987832) < 1e-9
    assert round2(n_perm) == 17.99
    # Total: (14.12 + 17.987832) x 1.2 = 38.5293984 -> 38.53, from the UNROUNDED load
    assert round2(total_with_buffer(14.12, n_perm, NEW)) == 38.53


def test_operating_factor_of_the_september_rules_is_one() -> None:
    # 2880 L/day x 365.25 x 25 / 1e6 = 26.298
    assert abs(load_kg_per_year(2880.0, 25.0, SEPT) - 26.298) < 1e-9


def test_missing_concentration_is_no_load() -> None:
    assert load_kg_per_year(5472.0, None, NEW) == 0.0


def test_buffer_always_adds_even_to_a_negative_base() -> None:
    # B = -20 + 5 = -15; -15 + 0.2 x 15 = -12
    assert total_with_buffer(-20.0, 5.0, NEW) == -12.0


def test_dwelling_category_row_wins_case_and_spacing_insensitively() -> None:
    chosen = rates_for("  hotel ", {"River Wensum SAC": 1.0}, TABLE)
    assert (chosen.rate.occupancy_rate, chosen.rate.water_usage_l_per_person_day) == (1.0, 240.0)
    assert chosen.source == "category"


def test_area_weighted_mean_across_catchments() -> None:
    # 3 ha at 120 l and 1 ha at 110 l -> (360 + 110) / 4 = 117.5
    chosen = rates_for("allocation", {"River Wensum SAC": 3.0, "The Broads SAC": 1.0}, TABLE)
    assert chosen.rate.occupancy_rate == 2.4
    assert chosen.rate.water_usage_l_per_person_day == 117.5
    assert chosen.source == "catchment"


def test_the_default_row_stands_in_for_a_catchment_without_a_row() -> None:
    # 1 ha in the Wensum (2.4, 120 l) and 3 ha in a catchment with no row (default 2.5, 130 l):
    # occupancy (2.4 x 1 + 2.5 x 3) / 4 = 9.9 / 4 = 2.475; water (120 + 390) / 4 = 127.5.
    chosen = rates_for("allocation", {"River Wensum SAC": 1.0, "River Bure SAC": 3.0}, TABLE)
    assert (chosen.rate.occupancy_rate, chosen.rate.water_usage_l_per_person_day) == (2.475, 127.5)
    assert chosen.source == "catchment"


def test_default_row_when_outside_every_catchment() -> None:
    chosen = rates_for("allocation", {}, TABLE)
    assert (chosen.rate.occupancy_rate, chosen.rate.water_usage_l_per_person_day) == (2.5, 130.0)
    assert chosen.source == "default"


def test_permit_helper_has_the_given_concentrations() -> None:
    p = permit(1065, "Sculthorpe", n=(27.0, 27.0), p=(1.0, None))
    assert (p.n_conc_2030_on, p.p_conc_2030_on) == (27.0, None)
