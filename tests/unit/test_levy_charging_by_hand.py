"""The levy from an EDP's charging schedule, each figure worked by hand beside its test."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from nrf.domain.charging import LevyPrices, levy_outcome, price_levy
from nrf.domain.levy_rounding import LevyRounding
from nrf.domain.model import LevyCharge, LookupTables
from nrf.domain.results import EdpOverlap, IndexRow, LevyPricing, LevyRefusal
from support.reference import rates

NORFOLK = "Norfolk EDP"
VAT = Decimal("0.20")
# Defra's published RICS CIL index rows (2026 = 1.0000), plus a made-up 2027 row for tests.
INDEX = {
    year: IndexRow(charging_year=year, cil_index=Decimal(cil), index_factor=Decimal(factor))
    for year, cil, factor in [
        (2021, "333", "0.8325"),
        (2024, "381", "0.9525"),
        (2025, "391", "0.9775"),
        (2026, "400", "1.0000"),
        (2027, "412", "1.0300"),  # synthetic
    ]
}


def charge(
    base: str,
    *,
    start: date = date(2026, 1, 1),
    valid: tuple[date, date] = (date(2026, 1, 1), date(2027, 12, 31)),
    edp_id: int = 1,
) -> LevyCharge:
    return LevyCharge(
        edp_id=edp_id,
        edp_name=NORFOLK,
        edp_start_date=start,
        charge_valid_from=valid[0],
        charge_valid_to=valid[1],
        base_charge_per_unit=Decimal(base),
    )


def price(
    charges: list[LevyCharge],
    units: int,
    on: date,
    index: dict[int, IndexRow] = INDEX,
    rounding: LevyRounding = LevyRounding.PER_UNIT,
) -> LevyPricing | LevyRefusal:
    """Priced under the per-unit rule unless named: the figures below were worked that way
    (both rules on Defra's own examples: tests/unit/test_levy_rounding_rules.py)."""
    return price_levy(
        edp_id=1,
        edp_name=NORFOLK,
        units=units,
        quote_date=on,
        charges=charges,
        index=index,
        vat_rate=VAT,
        rounding=rounding,
    )


def priced(
    charges: list[LevyCharge],
    units: int,
    on: date,
    rounding: LevyRounding = LevyRounding.PER_UNIT,
) -> LevyPricing:
    result = price(charges, units, on, rounding=rounding)
    assert isinstance(result, LevyPricing), result
    return result


def amounts(p: LevyPricing) -> tuple[str, ...]:
    return tuple(
        str(v)
        for v in (
            p.per_unit_charge,
            p.base_amount,
            p.amount_inflation_adjusted,
            p.amount_excluding_vat,
            p.vat,
            p.amount_including_vat,
        )
    )


def test_norfolk_charge_for_ten_homes_in_its_start_year() -> None:
    # £2,675.0000 -> 2675.00 per home; x 10 = 26,750.00 (same year: no indexing);
    # VAT 20 % = 5,350.00; including VAT 32,100.00.
    p = priced([charge("2675.0000")], 10, date(2026, 11, 26))
    assert amounts(p) == ("2675.00", "26750.00", "26750.00", "26750.00", "5350.00", "32100.00")
    assert p.index_rows == ()
    assert (p.edp_id, p.edp_name, p.units) == (1, NORFOLK, 10)
    assert p.base_charge_per_unit == Decimal("2675.0000")
    assert p.vat_rate == VAT
    assert p.calculator_version == "1"


def test_the_earlier_norfolk_charge_is_rounded_to_the_penny_before_multiplying() -> None:
    # £2,193.6649: third decimal 4, so 2193.66 per home; x 10 = 21,936.60 (not 21,936.649 ->
    # 21,936.65); VAT 4,387.32; including VAT 26,323.92.
    p = priced([charge("2193.6649")], 10, date(2026, 9, 14))
    assert amounts(p) == ("2193.66", "21936.60", "21936.60", "21936.60", "4387.32", "26323.92")


def test_a_quote_in_a_later_year_is_indexed_by_the_cil_factors() -> None:
    # EDP started 2025 (factor 0.9775), quoted 2026 (factor 1.0000), 7 homes:
    # per home 2193.6649 x 1.0000 / 0.9775 = 2244.15846... -> 2244.16; x 7 = 15,709.12.
    # Provisional (unindexed): 2193.66 x 7 = 15,355.62. VAT 15,709.12 x 0.2 = 3,141.824
    # -> 3,141.82; including VAT 18,850.94.
    c = charge("2193.6649", start=date(2025, 1, 1), valid=(date(2025, 1, 1), date(2026, 12, 31)))
    p = priced([c], 7, date(2026, 6, 1))
    assert amounts(p) == ("2244.16", "15355.62", "15709.12", "15709.12", "3141.82", "18850.94")
    assert p.index_rows == (INDEX[2025], INDEX[2026])


def test_both_factors_of_an_indexed_year_are_used() -> None:
    # Started 2021 (0.8325), quoted 2024 (0.9525): 1000 x 0.9525 / 0.8325 = 1144.1441...
    # -> 1144.14 per home; x 3 = 3,432.42; provisional 1000.00 x 3 = 3,000.00.
    c = charge("1000.0000", start=date(2021, 4, 1), valid=(date(2021, 4, 1), date(2030, 3, 31)))
    p = priced([c], 3, date(2024, 2, 29))
    assert (str(p.per_unit_charge), str(p.base_amount), str(p.amount_excluding_vat)) == (
        "1144.14",
        "3000.00",
        "3432.42",
    )


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        # First valid day, start year: 2675.00 x 10 = 26,750.00.
        (date(2026, 1, 1), "26750.00"),
        # Last valid day (inclusive), 2027: 2675 x 1.0300 / 1.0000 = 2755.25; x 10 = 27,552.50.
        (date(2027, 12, 31), "27552.50"),
    ],
)
def test_the_first_and_last_day_of_a_window_are_priced(day: date, expected: str) -> None:
    assert str(priced([charge("2675.0000")], 10, day).amount_excluding_vat) == expected


@pytest.mark.parametrize("day", [date(2025, 12, 31), date(2028, 1, 1)])
def test_the_days_either_side_of_the_window_have_no_charge(day: date) -> None:
    refusal = price([charge("2675.0000")], 10, day)
    assert isinstance(refusal, LevyRefusal)
    assert refusal.code == "no_charge_for_date"
    assert NORFOLK in refusal.message and str(day.year) in refusal.message


def test_the_window_covering_the_date_is_the_one_used() -> None:
    # Two windows of EDP 1 and one of EDP 2: 2027 uses the second row of EDP 1 (£3,000.0000,
    # started 2026 so indexed: 3000 x 1.03 = 3090.00; x 2 = 6,180.00). EDP 2's row covering
    # the same day comes first, so a lookup that forgot the EDP id would take its £9,999.
    rows = [
        charge("9999.0000", valid=(date(2027, 1, 1), date(2027, 12, 31)), edp_id=2),
        charge("2675.0000", valid=(date(2026, 1, 1), date(2026, 12, 31))),
        charge("3000.0000", valid=(date(2027, 1, 1), date(2027, 12, 31))),
    ]
    p = priced(rows, 2, date(2027, 1, 1))
    assert (p.base_charge_per_unit, str(p.amount_excluding_vat)) == (
        Decimal("3000.0000"),
        "6180.00",
    )
    assert p.charge_valid_from == date(2027, 1, 1)


def test_half_a_penny_rounds_up() -> None:
    # Base 2193.6650 -> 2193.67 (half up; half to even would give 2193.66); 1 home: 2193.67.
    assert str(priced([charge("2193.6650")], 1, date(2026, 5, 1)).base_amount) == "2193.67"
    # Indexed: 10 x 1.0125 / 1.0000 = 10.125 -> 10.13 per home (half to even: 10.12); x 1.
    index = {
        **INDEX,
        2027: IndexRow(
            charging_year=2027, cil_index=Decimal("405"), index_factor=Decimal("1.0125")
        ),
    }
    result = price([charge("10.0000")], 1, date(2027, 3, 1), index)
    assert isinstance(result, LevyPricing)
    assert str(result.per_unit_charge) == "10.13"


def test_a_missing_index_year_is_refused_not_assumed() -> None:
    # Quoted 2027 for an EDP started 2026, and the bundle has no 2027 row.
    index = {y: r for y, r in INDEX.items() if y != 2027}
    refusal = price([charge("2675.0000")], 10, date(2027, 6, 1), index)
    assert isinstance(refusal, LevyRefusal)
    assert refusal.code == "inflation_index_missing"
    assert "2027" in refusal.message and "2026" in refusal.message


def test_no_housing_units_is_refused() -> None:
    refusal = price([charge("2675.0000")], 0, date(2026, 6, 1))
    assert isinstance(refusal, LevyRefusal) and refusal.code == "no_housing_units"


def lookups() -> LookupTables:
    return LookupTables(
        permits={},
        rates=rates(),
        levy_charges=(charge("2675.0000"),),
        inflation_index=INDEX,
        vat_rate=VAT,
        edps={1: NORFOLK, 2: "Other EDP"},
    )


def overlap(edp_id: int, name: str) -> EdpOverlap:
    return EdpOverlap(edp_id=edp_id, edp_name=name, overlap_m2=100.0, overlap_percentage=50.0)


def outcome(units: int, edps: list[EdpOverlap], excluded: list[str]) -> LevyPricing | LevyRefusal:
    return levy_outcome(
        units=units,
        edps=edps,
        excluded_areas=excluded,
        quote_date=date(2026, 6, 1),
        lookups=lookups(),
    )


def test_one_edp_is_priced() -> None:
    result = outcome(10, [overlap(1, NORFOLK)], [])
    assert isinstance(result, LevyPricing) and str(result.amount_excluding_vat) == "26750.00"


def test_no_edp_and_two_edps_are_refused() -> None:
    none = outcome(10, [], [])
    two = outcome(10, [overlap(1, NORFOLK), overlap(2, "Other EDP")], [])
    assert isinstance(none, LevyRefusal) and none.code == "no_edp"
    assert isinstance(two, LevyRefusal) and two.code == "multiple_edps"
    assert NORFOLK in two.message and "Other EDP" in two.message


def test_an_excluded_area_is_refused_naming_each_area_and_the_route() -> None:
    refusal = outcome(10, [overlap(1, NORFOLK)], ["Wensum SSSI buffer", ""])
    assert isinstance(refusal, LevyRefusal) and refusal.code == "excluded_area"
    assert "Wensum SSSI buffer" in refusal.message and "(unnamed)" in refusal.message
    assert "Habitats Regulations Assessment" in refusal.message


def test_an_excluded_area_comes_before_every_other_refusal() -> None:
    # No homes, no EDP and an excluded area: the planner's route is the HRA, so that is said.
    refusal = outcome(0, [], ["Somewhere"])
    assert isinstance(refusal, LevyRefusal) and refusal.code == "excluded_area"
    no_units = outcome(0, [], [])
    assert isinstance(no_units, LevyRefusal) and no_units.code == "no_housing_units"


def test_a_batch_prices_each_distinct_levy_once_and_shares_the_answer() -> None:
    # 10 homes at £2,675.00: £26,750.00; 3 homes: 3 x 2,675.00 = £8,025.00. The second
    # 10-home site gets the very record the first did (nothing in it depends on the site).
    prices = LevyPrices(lookups())
    on = date(2026, 6, 1)
    first = levy_outcome(
        units=10,
        edps=[overlap(1, NORFOLK)],
        excluded_areas=[],
        quote_date=on,
        lookups=lookups(),
        prices=prices,
    )
    again = prices.price(1, NORFOLK, 10, on)
    three = prices.price(1, NORFOLK, 3, on)
    assert isinstance(first, LevyPricing) and str(first.amount_excluding_vat) == "26750.00"
    assert again is first
    assert isinstance(three, LevyPricing) and str(three.amount_excluding_vat) == "8025.00"
    # another quote date is priced on its own: 2027 indexed, 2,675 x 1.0300 = 2,755.25 a home
    later = prices.price(1, NORFOLK, 10, date(2027, 6, 1))
    assert isinstance(later, LevyPricing) and str(later.amount_excluding_vat) == "27552.50"
