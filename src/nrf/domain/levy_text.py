"""A levy in words, written once for every output a person reads (report, email, terminal).

One place decides how money looks (``£26,750.00``) and how a quote or a refusal is told, so
the report, the email and the terminal never disagree, and a refused levy is always told as
a refusal with its code, never as a £0.00 that reads like a quote.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from attrs import frozen

from nrf.domain.levy_rounding import LevyRounding
from nrf.domain.results import IndexRow, LevyPricing, LevyRefusal, SiteAssessment

HRA_ROUTE = (
    "This site is not eligible for the levy: its route is a Habitats Regulations Assessment "
    "(HRA) with the local planning authority."
)
UNNAMED_AREA = "(unnamed)"


def gbp(value: Decimal) -> str:
    """Pounds with thousands commas and pence, as a person reads money: £26,750.00."""
    return f"£{value:,.2f}"


def gbp_scheduled(value: Decimal) -> str:
    """A scheduled charge as the bundle holds it, every decimal kept: £2,675.0000."""
    return f"£{value:,}"


def percent(rate: Decimal) -> str:
    """A rate as a percentage without trailing zeros: 0.20 -> 20%, 0.175 -> 17.5%."""
    return f"{(rate * 100).normalize():f}%"


def area_names(names: tuple[str, ...]) -> str:
    """Excluded areas by name; a blank name is still an area, shown as (unnamed)."""
    return "; ".join(name.strip() or UNNAMED_AREA for name in names)


def index_row(pricing: LevyPricing, year: int) -> IndexRow | None:
    return next((r for r in pricing.index_rows if r.charging_year == year), None)


def is_indexed(pricing: LevyPricing) -> bool:
    return pricing.quote_date.year != pricing.edp_start_date.year


def per_unit_working(pricing: LevyPricing) -> str:
    """How the charge per unit was reached: the scheduled base, indexed when the year differs."""
    base = gbp_scheduled(pricing.base_charge_per_unit)
    if not is_indexed(pricing):
        return (
            f"{base} per unit from the charging schedule, to the penny: "
            f"{gbp(pricing.per_unit_charge)}"
        )
    start = index_row(pricing, pricing.edp_start_date.year)
    now = index_row(pricing, pricing.quote_date.year)
    start_factor = "?" if start is None else f"{start.index_factor}"
    now_factor = "?" if now is None else f"{now.index_factor}"
    return (
        f"{base} per unit x {now_factor} (CIL index factor {pricing.quote_date.year}) / "
        f"{start_factor} (CIL index factor {pricing.edp_start_date.year}, the EDP's start "
        f"year), to the penny: {gbp(pricing.per_unit_charge)}"
    )


def total_working(pricing: LevyPricing) -> str:
    """The sum under the round-total rule: every factor multiplied out, rounded once."""
    plural = "" if pricing.units == 1 else "s"
    sum_ = f"{pricing.units:,} unit{plural} x {gbp_scheduled(pricing.base_charge_per_unit)}"
    if is_indexed(pricing):
        start = index_row(pricing, pricing.edp_start_date.year)
        now = index_row(pricing, pricing.quote_date.year)
        sum_ += (
            f" x {'?' if now is None else now.index_factor} (CIL index factor "
            f"{pricing.quote_date.year}) / {'?' if start is None else start.index_factor} (CIL "
            f"index factor {pricing.edp_start_date.year}, the EDP's start year)"
        )
    return f"{sum_}, rounded once to the penny: {gbp(pricing.amount_excluding_vat)} excluding VAT"


def pricing_lines(pricing: LevyPricing) -> list[str]:
    """Every input that priced the quote and each step, in the order the sum is done."""
    plural = "" if pricing.units == 1 else "s"
    lines = [
        f"EDP {pricing.edp_id} {pricing.edp_name}; quote date {pricing.quote_date.isoformat()}",
        f"Charge valid {pricing.charge_valid_from.isoformat()} to "
        f"{pricing.charge_valid_to.isoformat()} (EDP started {pricing.edp_start_date.isoformat()})",
    ]
    if pricing.rounding is LevyRounding.ROUND_TOTAL:
        lines.append(total_working(pricing))
    else:
        lines += [
            per_unit_working(pricing),
            f"{pricing.units} unit{plural} x {gbp(pricing.per_unit_charge)} = "
            f"{gbp(pricing.amount_excluding_vat)} excluding VAT",
        ]
    if is_indexed(pricing):
        lines.append(f"Before indexation (provisional): {gbp(pricing.base_amount)}")
    lines += [
        f"VAT at {percent(pricing.vat_rate)}: {gbp(pricing.vat)}; "
        f"total including VAT {gbp(pricing.amount_including_vat)}",
        f"Calculator {pricing.calculator_version}, rounding {pricing.rounding.value}",
    ]
    return lines


def refusal_lines(refusal: LevyRefusal, excluded_areas: tuple[str, ...] = ()) -> list[str]:
    """A refused levy: its code and plain words; an excluded site names its areas and route."""
    lines = [f"Levy not quoted ({refusal.code}): {refusal.message}"]
    if refusal.code == "excluded_area":
        if excluded_areas:
            lines.append(f"Excluded areas met: {area_names(excluded_areas)}")
        if "Habitats Regulations Assessment" not in refusal.message:
            lines.append(HRA_ROUTE)
    return lines


def levy_lines(site: SiteAssessment) -> list[str]:
    """What a person is told about one site's levy: the working, or why there is none."""
    if site.pricing is not None:
        return pricing_lines(site.pricing)
    if site.levy_refusal is not None:
        return refusal_lines(site.levy_refusal, site.excluded_areas)
    return ["Levy not quoted: the assessment gave no price and no reason"]


def short_levy(site: SiteAssessment) -> str:
    """One cell's worth: the amount excluding VAT, or ``not quoted (code)``."""
    if site.pricing is not None:
        return gbp(site.pricing.amount_excluding_vat)
    code = site.levy_refusal.code if site.levy_refusal is not None else "no_price"
    return f"not quoted ({code})"


@frozen(kw_only=True)
class LevySum:
    """The quoted levies of a batch added up; refused sites are counted, never added as £0."""

    excluding_vat: Decimal
    vat: Decimal
    including_vat: Decimal
    quoted: int
    refused: int


def levy_sum(sites: Iterable[SiteAssessment]) -> LevySum:
    """Each quote is already to the penny, so the sums are exact (one pass, keeping nothing:
    a spooled national run is summed as it is read)."""
    excluding = vat = including = Decimal("0.00")
    quoted = refused = 0
    for site in sites:
        p = site.pricing
        if p is None:
            refused += 1
            continue
        quoted += 1
        excluding += p.amount_excluding_vat
        vat += p.vat
        including += p.amount_including_vat
    return LevySum(
        excluding_vat=excluding, vat=vat, including_vat=including, quoted=quoted, refused=refused
    )
