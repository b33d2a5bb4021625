"""Both rounding rules on Defra's own levy examples, each figure worked by hand beside its test.

Defra's newest levy calculator (DEFRA/nrf-impact-assessor, app/calculators/levy.py and
tests/unit/calculators/test_levy.py at 5be292dd) rounds the indexed total once; its earlier
one (levy.py at 62d21d7) rounded each unit's indexed charge first. A bundle states which.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from nrf.domain.charging import price_levy
from nrf.domain.levy_rounding import FOR_NEW_BUNDLES, UNSTATED, LevyRounding
from nrf.domain.levy_text import pricing_lines
from nrf.domain.model import LevyCharge
from nrf.domain.results import IndexRow, LevyPricing

TOTAL, PER_UNIT = LevyRounding.ROUND_TOTAL, LevyRounding.PER_UNIT
VAT = Decimal("0.20")


def row(year: int, factor: str) -> IndexRow:
    return IndexRow(charging_year=year, cil_index=Decimal(400), index_factor=Decimal(factor))


def priced(
    base: str,
    units: int,
    *,
    start: int,
    on: date,
    factors: dict[int, str],
    rounding: LevyRounding,
) -> LevyPricing:
    charge = LevyCharge(
        edp_id=1,
        edp_name="Norfolk EDP",
        edp_start_date=date(start, 1, 1),
        charge_valid_from=date(2020, 1, 1),
        charge_valid_to=date(2030, 12, 31),
        base_charge_per_unit=Decimal(base),
    )
    result = price_levy(
        edp_id=1,
        edp_name="Norfolk EDP",
        units=units,
        quote_date=on,
        charges=[charge],
        index={year: row(year, f) for year, f in factors.items()},
        vat_rate=VAT,
        rounding=rounding,
    )
    assert isinstance(result, LevyPricing), result
    return result


def test_new_bundles_round_the_total_and_older_ones_keep_the_per_unit_rule() -> None:
    assert (FOR_NEW_BUNDLES, UNSTATED) == (TOTAL, PER_UNIT)


@pytest.mark.parametrize(("rounding", "expected"), [(TOTAL, "666.67"), (PER_UNIT, "666.66")])
def test_a_third_of_1000_for_two_units(rounding: LevyRounding, expected: str) -> None:
    # Defra's example: £1,000 a unit, 2 units, start-year factor 3, quote-year factor 1.
    # Total once: 2 x 1000 x 1 / 3 = 666.666... -> 666.67.
    # Per unit: 1000 / 3 = 333.333... -> 333.33; x 2 = 666.66.
    p = priced(
        "1000",
        2,
        start=2026,
        on=date(2027, 3, 1),
        factors={2026: "3", 2027: "1"},
        rounding=rounding,
    )
    assert str(p.amount_inflation_adjusted) == expected
    assert p.rounding is rounding
    # The provisional amount is not indexed: 1000 x 2 = 2,000.00 under either rule.
    assert str(p.base_amount) == "2000.00"


@pytest.mark.parametrize(("rounding", "expected"), [(TOTAL, "8209.72"), (PER_UNIT, "8209.71")])
def test_2675_for_three_units_from_a_2025_start(rounding: LevyRounding, expected: str) -> None:
    # £2,675 a unit, 3 units, EDP started 2025 (factor 0.9775 = 391/400), quoted 2026 (1.0000).
    # Total once: 8025 x 400 / 391 = 3,210,000 / 391 = 8209.7186... (391 x 8209 = 3,209,719,
    #   remainder 281, 281/391 = 0.7186) -> 8,209.72.
    # Per unit: 2675 x 400 / 391 = 1,070,000 / 391 = 2736.5728... -> 2,736.57; x 3 = 8,209.71.
    p = priced(
        "2675",
        3,
        start=2025,
        on=date(2026, 6, 1),
        factors={2025: "0.9775", 2026: "1.0000"},
        rounding=rounding,
    )
    assert str(p.amount_excluding_vat) == expected
    assert str(p.base_amount) == "8025.00"


@pytest.mark.parametrize("rounding", [TOTAL, PER_UNIT])
def test_2675_for_ten_units_at_0_83_is_22202_50_either_way(rounding: LevyRounding) -> None:
    # Defra's example: £2,675 x 10 units, start year factor 1.0000, quote year (2022) 0.8300.
    # Total once: 26,750 x 0.83 = 22,202.50 exactly. Per unit: 2675 x 0.83 = 2,220.25; x 10 =
    # 22,202.50. VAT 20 % = 4,440.50; including VAT 26,643.00.
    p = priced(
        "2675.0000",
        10,
        start=2026,
        on=date(2022, 6, 1),
        factors={2026: "1.0000", 2022: "0.8300"},
        rounding=rounding,
    )
    assert (str(p.amount_excluding_vat), str(p.vat), str(p.amount_including_vat)) == (
        "22202.50",
        "4440.50",
        "26643.00",
    )
    assert str(p.per_unit_charge) == "2220.25"


@pytest.mark.parametrize(
    ("base", "start_factor", "expected"),
    [
        ("1000", "6", "333.33"),  # 2 x 1000 / 6 = 333.333...: third decimal 3, down
        ("17", "16", "2.13"),  # 2 x 17 / 16 = 2.125: half up (half to even would give 2.12)
    ],
)
def test_the_total_is_rounded_half_up(base: str, start_factor: str, expected: str) -> None:
    p = priced(
        base,
        2,
        start=2026,
        on=date(2027, 1, 1),
        factors={2026: start_factor, 2027: "1"},
        rounding=TOTAL,
    )
    assert str(p.amount_excluding_vat) == expected


def test_a_fractional_base_is_priced_as_written_under_either_rule() -> None:
    # £2,193.6649 x 10 in its start year. Total once: 21,936.649 -> 21,936.65.
    # Per unit: 2,193.66 x 10 = 21,936.60. (The gate warns about such a charge; see
    # test_gate_levy_rounding.py.)
    on, factors = date(2026, 9, 14), {2026: "1.0000"}
    total = priced("2193.6649", 10, start=2026, on=on, factors=factors, rounding=TOTAL)
    unit = priced("2193.6649", 10, start=2026, on=on, factors=factors, rounding=PER_UNIT)
    assert (str(total.base_amount), str(total.amount_excluding_vat)) == ("21936.65", "21936.65")
    assert (str(unit.base_amount), str(unit.amount_excluding_vat)) == ("21936.60", "21936.60")


def test_999999_units_are_exact_to_the_penny() -> None:
    # Defra's backend maximum. £2,675 x 999,999 = £2,674,997,325.00 provisional. From a 2025
    # start quoted in 2026: x 400 / 391 = 1,069,998,930,000 / 391; 391 x 2,736,570,153 =
    # 1,069,998,929,823, remainder 177, 177/391 = 0.4527 -> £2,736,570,153.45 (total once).
    # Per unit: 2,736.57 x 999,999 = 2,736,570,000 - 2,736.57 = £2,736,567,263.43.
    # VAT on the total-once amount: 2,736,570,153.45 x 0.2 = 547,314,030.69; including VAT
    # 3,283,884,184.14.
    factors = {2025: "0.9775", 2026: "1.0000"}
    on = date(2026, 6, 1)
    total = priced("2675", 999_999, start=2025, on=on, factors=factors, rounding=TOTAL)
    unit = priced("2675", 999_999, start=2025, on=on, factors=factors, rounding=PER_UNIT)
    assert str(total.base_amount) == "2674997325.00"
    assert str(total.amount_excluding_vat) == "2736570153.45"
    assert (str(total.vat), str(total.amount_including_vat)) == (
        "547314030.69",
        "3283884184.14",
    )
    assert str(unit.amount_excluding_vat) == "2736567263.43"


def test_the_working_shows_the_sum_as_it_was_done() -> None:
    # £2,675 x 3 from a 2025 start quoted 2026: the round-total working multiplies everything
    # out and rounds once (8,209.72); the per-unit working shows 2,736.57 a unit, x 3.
    factors = {2025: "0.9775", 2026: "1.0000"}
    total = priced("2675", 3, start=2025, on=date(2026, 6, 1), factors=factors, rounding=TOTAL)
    unit = priced("2675", 3, start=2025, on=date(2026, 6, 1), factors=factors, rounding=PER_UNIT)
    total_text, unit_text = "\n".join(pricing_lines(total)), "\n".join(pricing_lines(unit))
    assert (
        "3 units x £2,675 x 1.0000 (CIL index factor 2026) / 0.9775 (CIL index factor 2025, the "
        "EDP's start year), rounded once to the penny: £8,209.72 excluding VAT"
    ) in total_text
    assert "3 units x £2,736.57 = £8,209.71 excluding VAT" in unit_text
    assert "rounding round_total" in total_text and "rounding per_unit" in unit_text
