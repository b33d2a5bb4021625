"""Levy quote: £ per kg of nitrogen and phosphorus per EDP, from the bundle's rates."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal

from nrf.domain.model import LevyRate
from nrf.domain.results import CatchmentImpact, EdpLevy, LevyQuote

PENNY = Decimal("0.01")
ZERO_QUOTE = LevyQuote(
    levy_gbp=Decimal("0.00"),
    monitoring_gbp=Decimal("0.00"),
    maintenance_gbp=Decimal("0.00"),
    admin_gbp=Decimal("0.00"),
    mitigation_gbp=Decimal("0.00"),
)


def to_pounds(value: Decimal) -> Decimal:
    """Round money to pennies, half up (0.005 → 0.01), as published levy charges are."""
    return value.quantize(PENNY, rounding=ROUND_HALF_UP)


def kg_decimal(kg: float) -> Decimal:
    """A 2-dp kg figure as the decimal it was printed as, not its binary expansion."""
    return Decimal(repr(kg)).quantize(PENNY, rounding=ROUND_HALF_UP)


def quote(n_kg: Decimal, p_kg: Decimal, rate: LevyRate) -> LevyQuote:
    """Levy for one EDP; a negative impact charges nothing (and credits nothing)."""
    charge = max(n_kg, Decimal(0)) * rate.n_gbp_per_kg + max(p_kg, Decimal(0)) * rate.p_gbp_per_kg
    levy = to_pounds(charge)
    monitoring = to_pounds(levy * rate.monitoring_share)
    maintenance = to_pounds(levy * rate.maintenance_share)
    admin = to_pounds(levy * rate.admin_share)
    return LevyQuote(
        levy_gbp=levy,
        monitoring_gbp=monitoring,
        maintenance_gbp=maintenance,
        admin_gbp=admin,
        mitigation_gbp=levy - monitoring - maintenance - admin,
    )


def sum_quotes(quotes: Iterable[LevyQuote]) -> LevyQuote:
    total = ZERO_QUOTE
    for q in quotes:
        total = LevyQuote(
            levy_gbp=total.levy_gbp + q.levy_gbp,
            monitoring_gbp=total.monitoring_gbp + q.monitoring_gbp,
            maintenance_gbp=total.maintenance_gbp + q.maintenance_gbp,
            admin_gbp=total.admin_gbp + q.admin_gbp,
            mitigation_gbp=total.mitigation_gbp + q.mitigation_gbp,
        )
    return total


def levy_by_edp(
    catchments: Sequence[CatchmentImpact], rates: Mapping[str, LevyRate]
) -> tuple[EdpLevy, ...]:
    """Group a site's catchment shares by EDP and price each EDP."""
    edps = sorted({c.edp_id for c in catchments})
    result = []
    for edp in edps:
        members = [c for c in catchments if c.edp_id == edp]
        n_kg = sum((kg_decimal(c.n_total) for c in members), Decimal("0.00"))
        p_kg = sum((kg_decimal(c.p_total) for c in members), Decimal("0.00"))
        rate = rates.get(edp)
        result.append(
            EdpLevy(
                edp_id=edp,
                edp_name=rate.edp_name if rate else None,
                n_total=float(n_kg),
                p_total=float(p_kg),
                quote=quote(n_kg, p_kg, rate) if rate else None,
            )
        )
    return tuple(result)
