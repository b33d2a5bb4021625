"""Wastewater loads: people × water × permit concentration, per treatment works."""

from __future__ import annotations

import math
from collections.abc import Mapping

from attrs import frozen

from nrf.domain.model import OccupancyRate, RatesTable, WwtwPermit, category_key
from nrf.domain.rules import RuleSet


@frozen
class ChosenRates:
    """The rates a site uses and where they came from."""

    rate: OccupancyRate
    source: str  # "category", "catchment" or "default"


def rates_for(
    dwelling_category: str, catchment_areas: Mapping[str, float], table: RatesTable
) -> ChosenRates:
    """Pick occupancy and water use for ONE site, never from other sites.

    A row for the dwelling category wins; otherwise the NN catchment's row
    (area-weighted over the catchments the site lies in, the default row
    standing in for a catchment without one); otherwise the default row.
    """
    by_category = table.by_category.get(category_key(dwelling_category))
    if by_category is not None:
        return ChosenRates(by_category, "category")
    known = [name for name in catchment_areas if name in table.by_catchment]
    if not known:
        return ChosenRates(table.default, "default")
    weighted = [
        (table.by_catchment.get(name, table.default), area)
        for name, area in sorted(catchment_areas.items())
    ]
    distinct = {w[0] for w in weighted}
    if len(distinct) == 1:
        # One value: use it as stored, not as a weighted mean with float noise.
        return ChosenRates(distinct.pop(), "catchment")
    total_area = math.fsum(area for _, area in weighted)
    occupancy = math.fsum(r.occupancy_rate * a for r, a in weighted) / total_area
    water = math.fsum(r.water_usage_l_per_person_day * a for r, a in weighted) / total_area
    return ChosenRates(OccupancyRate(occupancy, water), "catchment")


def litres_per_day(dwellings: int, rate: OccupancyRate) -> float:
    # Operation order as in the published tool, so binary results match.
    return dwellings * (rate.occupancy_rate * rate.water_usage_l_per_person_day)


def load_kg_per_year(litres_day: float, conc_mg_per_l: float | None, rules: RuleSet) -> float:
    """Annual load at a permit concentration; a missing concentration means no load."""
    if conc_mg_per_l is None:
        return 0.0
    annual_litres = litres_day * rules.days_per_year
    return annual_litres * ((conc_mg_per_l / rules.mg_per_kg) * rules.wwtw_operating_factor)


@frozen(kw_only=True)
class WastewaterLoads:
    """Unrounded loads for 2025–2030 ("temp") and 2030 onwards ("perm"), kg/year."""

    n_temp: float
    n_perm: float
    p_temp: float
    p_perm: float


def wastewater_loads(
    litres_day: float, permit: WwtwPermit | None, rules: RuleSet
) -> WastewaterLoads:
    if permit is None:
        return WastewaterLoads(n_temp=0.0, n_perm=0.0, p_temp=0.0, p_perm=0.0)
    return WastewaterLoads(
        n_temp=load_kg_per_year(litres_day, permit.n_conc_2025_2030, rules),
        n_perm=load_kg_per_year(litres_day, permit.n_conc_2030_on, rules),
        p_temp=load_kg_per_year(litres_day, permit.p_conc_2025_2030, rules),
        p_perm=load_kg_per_year(litres_day, permit.p_conc_2030_on, rules),
    )


def total_with_buffer(land_use_post_suds: float, wastewater_perm: float, rules: RuleSet) -> float:
    """B + buffer × |B| (unrounded); the buffer always adds, whatever the sign of B."""
    base = land_use_post_suds + wastewater_perm
    return base + abs(base) * (rules.buffer_percent / 100)
