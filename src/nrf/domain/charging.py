"""The levy from an EDP's charging schedule: a charge per housing unit, indexed by charging year.

Defra prices the Nature Restoration Fund levy this way (its calculator version 1), in pounds
excluding VAT, rounding half up to the penny so a quote can be checked by hand. When the quote
falls in another calendar year than the EDP started in, the charge is indexed by
factor(quote year) / factor(start year). Where the rounding falls is the bundle's stated rule
(``nrf.domain.levy_rounding``): the total once, exactly (Defra's newest), or each unit first.
Anything missing is refused with a stable code, never assumed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from nrf.domain.levy_rounding import LevyRounding
from nrf.domain.model import LevyCharge, LookupTables
from nrf.domain.results import EdpOverlap, IndexRow, LevyPricing, LevyRefusal

CALCULATOR_VERSION = "1"  # Defra's LEVY_CALCULATOR_VERSION whose rule this follows
PENNY = Decimal("0.01")
HRA_ROUTE = "it needs a Habitats Regulations Assessment instead"


def utc_day(epoch_seconds: float) -> date:
    """The quote date of a moment: its calendar day in UTC (a clock port's ``now()``)."""
    return datetime.fromtimestamp(epoch_seconds, UTC).date()


def half_up(value: Decimal) -> Decimal:
    """Pounds to the penny, half up (0.005 -> 0.01); Python's round() would go half to even."""
    return value.quantize(PENNY, rounding=ROUND_HALF_UP)


def half_up_exact(value: Fraction) -> Decimal:
    """A positive exact amount to the penny, half up, with no intermediate rounding at all
    (a Decimal quotient is cut to 28 digits first, which could in principle tip a half)."""
    pennies = (value * 100 + Fraction(1, 2)).__floor__()
    return (Decimal(pennies) / 100).quantize(PENNY)


def _day(d: date) -> str:
    return f"{d.day} {d:%B %Y}"


def charge_on(charges: Sequence[LevyCharge], edp_id: int, day: date) -> LevyCharge | None:
    """The EDP's charge whose window (both ends inclusive) covers ``day``; windows never overlap."""
    return next((c for c in charges if c.edp_id == edp_id and c.covers(day)), None)


# Long: the charging schedule's rules in order, as docs/calculation.md gives them.
def price_levy(
    *,
    edp_id: int,
    edp_name: str,
    units: int,
    quote_date: date,
    charges: Sequence[LevyCharge],
    index: Mapping[int, IndexRow],
    vat_rate: Decimal,
    rounding: LevyRounding,
) -> LevyPricing | LevyRefusal:
    """The levy of ``units`` homes in one EDP on ``quote_date``, or why it cannot be quoted."""
    if units <= 0:
        return no_units_refusal()
    charge = charge_on(charges, edp_id, quote_date)
    if charge is None:
        return LevyRefusal(
            "no_charge_for_date",
            f"The {edp_name} has no levy charge for {_day(quote_date)}: no charging window "
            "of its schedule covers that date, so no levy can be quoted for it yet.",
        )
    base = charge.base_charge_per_unit
    total_once = rounding is LevyRounding.ROUND_TOTAL
    base_amount = half_up(base * units) if total_once else half_up(half_up(base) * units)
    start_year, quote_year = charge.edp_start_date.year, quote_date.year
    rows: tuple[IndexRow, ...] = ()
    if quote_year == start_year:
        per_unit = half_up(base)
        adjusted = base_amount
    else:
        missing = [y for y in sorted({start_year, quote_year}) if y not in index]
        if missing:
            years = " and ".join(str(y) for y in missing)
            return LevyRefusal(
                "inflation_index_missing",
                f"The {edp_name} charge was set in {start_year} and must be indexed to "
                f"{quote_year}, but the reference data has no RICS CIL index for {years}, "
                "so no levy can be quoted for that date yet.",
            )
        start, now = index[start_year], index[quote_year]
        rows = (start, now)
        per_unit = half_up(base * now.index_factor / start.index_factor)
        if total_once:
            ratio = Fraction(now.index_factor) / Fraction(start.index_factor)
            adjusted = half_up_exact(Fraction(base) * units * ratio)
        else:
            adjusted = half_up(per_unit * units)
    vat = half_up(adjusted * vat_rate)
    return LevyPricing(
        edp_id=charge.edp_id,
        edp_name=charge.edp_name,
        units=units,
        quote_date=quote_date,
        edp_start_date=charge.edp_start_date,
        charge_valid_from=charge.charge_valid_from,
        charge_valid_to=charge.charge_valid_to,
        base_charge_per_unit=base,
        per_unit_charge=per_unit,
        index_rows=rows,
        base_amount=base_amount,
        amount_inflation_adjusted=adjusted,
        amount_excluding_vat=adjusted,
        vat_rate=vat_rate,
        vat=vat,
        amount_including_vat=adjusted + vat,
        calculator_version=CALCULATOR_VERSION,
        rounding=rounding,
    )


def _names(names: Sequence[str]) -> str:
    return "; ".join(names)


def excluded_refusal(areas: Sequence[str]) -> LevyRefusal:
    """The site meets excluded areas (named; a blank name is "(unnamed)"): not eligible."""
    named = [a.strip() or "(unnamed)" for a in areas]
    return LevyRefusal(
        "excluded_area",
        f"The site meets an excluded area ({_names(named)}) where the levy is not available, "
        f"so the development cannot pay the levy: {HRA_ROUTE}.",
    )


def no_units_refusal() -> LevyRefusal:
    return LevyRefusal(
        "no_housing_units",
        "The levy is charged per home and this development has no housing units, "
        "so no levy can be quoted.",
    )


def no_edp_refusal() -> LevyRefusal:
    return LevyRefusal(
        "no_edp",
        "The site is not inside any Environmental Delivery Plan area, so there is no levy "
        "to quote for it.",
    )


def multiple_edps_refusal(names: Sequence[str]) -> LevyRefusal:
    return LevyRefusal(
        "multiple_edps",
        f"The site crosses {len(names)} Environmental Delivery Plan areas ({_names(names)}); "
        "a levy is quoted for a site within one plan area only, so no levy can be quoted.",
    )


def levy_outcome(
    *,
    units: int,
    edps: Sequence[EdpOverlap],
    excluded_areas: Sequence[str],
    quote_date: date,
    lookups: LookupTables,
    prices: LevyPrices | None = None,
) -> LevyPricing | LevyRefusal:
    """A site's levy, refused first for an excluded area, then no homes, then no single EDP.

    ``prices``: a batch's ``LevyPrices`` over the same ``lookups``, so that each distinct
    levy is priced once.
    """
    if excluded_areas:
        return excluded_refusal(excluded_areas)
    if units <= 0:
        return no_units_refusal()
    if not edps:
        return no_edp_refusal()
    if len(edps) > 1:
        return multiple_edps_refusal([e.edp_name for e in edps])
    (edp,) = edps
    return (prices or LevyPrices(lookups)).price(edp.edp_id, edp.edp_name, units, quote_date)


class LevyPrices:
    """``price_levy`` over one bundle's tables, each distinct (EDP, units, quote date) once.

    A batch's sites mostly lie in one EDP and share a few unit counts, and a levy depends on
    nothing else, so the frozen answer of the first is the answer of the rest; pricing it
    again (Decimal steps and a 17-field record) cost about 1 % of a batch.
    """

    def __init__(self, lookups: LookupTables) -> None:
        self._lookups = lookups
        self._known: dict[tuple[int, str, int, date], LevyPricing | LevyRefusal] = {}

    def price(
        self, edp_id: int, edp_name: str, units: int, quote_date: date
    ) -> LevyPricing | LevyRefusal:
        key = (edp_id, edp_name, units, quote_date)
        if key not in self._known:
            self._known[key] = price_levy(
                edp_id=edp_id,
                edp_name=edp_name,
                units=units,
                quote_date=quote_date,
                charges=self._lookups.levy_charges,
                index=self._lookups.inflation_index,
                vat_rate=self._lookups.vat_rate,
                rounding=self._lookups.levy_rounding,
            )
        return self._known[key]
