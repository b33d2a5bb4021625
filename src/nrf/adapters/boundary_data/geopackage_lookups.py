"""Clean the non-spatial tables of a bundle into lookup values, listing every bad value."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal
from types import MappingProxyType

from nrf.adapters.boundary_data.geopackage_cells import (
    decimal_text,
    number,
    stored_date,
    text_or_none,
    whole_number,
)
from nrf.domain.levy_rounding import SETTING, UNSTATED, LevyRounding, levy_rounding_named
from nrf.domain.model import (
    LevyCharge,
    OccupancyRate,
    RatesTable,
    WwtwPermit,
    category_key,
)
from nrf.domain.results import IndexRow

Row = Mapping[str, object]  # wanted column name -> stored value, plus "_key" (rowid / fid)
CONCENTRATIONS = ("n_conc_2025_2030", "n_conc_2030_on", "p_conc_2025_2030", "p_conc_2030_on")


def permits(rows: Iterable[Row], problems: list[str]) -> Mapping[int, WwtwPermit]:
    """Rows without a numeric id are skipped; the first row of a duplicated id wins."""
    out: dict[int, WwtwPermit] = {}
    for row in rows:
        wwtw_id = whole_number(row["wwtw_id"])
        if wwtw_id is None or wwtw_id in out:
            continue
        conc: list[float | None] = []
        for col in CONCENTRATIONS:
            value = row[col]
            # The common case first (a stored finite REAL): a national table has ~4,000 rows
            # and this runs at every open.
            if type(value) is float and math.isfinite(value):
                conc.append(value)
                continue
            try:
                conc.append(number(value))
            except ValueError:
                problems.append(
                    f"table 'wwtw_permits' row {row['_key']} (wwtw_id {wwtw_id}): "
                    f"{col} is not a number: {row[col]!r}"
                )
                conc.append(None)
        n_now, n_later, p_now, p_later = conc
        out[wwtw_id] = WwtwPermit(
            wwtw_id=wwtw_id,
            wwtw_name=text_or_none(row["wwtw_name"]) or "",
            wwtw_subcatchment=text_or_none(row["wwtw_subcatchment"]),
            n_conc_2025_2030=n_now,
            n_conc_2030_on=n_later,
            p_conc_2025_2030=p_now,
            p_conc_2030_on=p_later,
        )
    return MappingProxyType(out)


def _rate(row: Row, problems: list[str]) -> OccupancyRate | None:
    try:
        occupancy = number(row["occupancy_rate"])
        water = number(row["water_usage_l_per_person_day"])
    except ValueError:
        occupancy = water = None
    if occupancy is None or water is None or occupancy < 0 or water < 0:
        problems.append(
            f"table 'occupancy_rates' row {row['_key']}: occupancy_rate and "
            "water_usage_l_per_person_day must be non-negative numbers"
        )
        return None
    return OccupancyRate(occupancy, water)


def rates(rows: Iterable[Row], problems: list[str]) -> RatesTable | None:
    """Occupancy by category, by NN catchment, and the mandatory ``default`` row."""
    by_category: dict[str, OccupancyRate] = {}
    by_catchment: dict[str, OccupancyRate] = {}
    default: OccupancyRate | None = None
    for row in rows:
        catchment = text_or_none(row["nn_catchment"])
        category = text_or_none(row["dwelling_category"])
        if (catchment is None) == (category is None):
            problems.append(
                f"table 'occupancy_rates' row {row['_key']}: set exactly one of "
                "nn_catchment and dwelling_category"
            )
            continue
        rate = _rate(row, problems)
        if rate is None:
            continue
        if catchment is not None and catchment.casefold() == "default":
            default = default or rate
        elif catchment is not None:
            by_catchment.setdefault(catchment, rate)
        elif category is not None:
            by_category.setdefault(category_key(category), rate)
    if default is None:
        problems.append("table 'occupancy_rates' has no 'default' row")
        return None
    return RatesTable(MappingProxyType(by_category), MappingProxyType(by_catchment), default)


def _charge(row: Row, problems: list[str]) -> LevyCharge | None:
    where = f"table 'levy_charges' row {row['_key']}"
    edp_id = whole_number(row["edp_id"])
    name = text_or_none(row["edp_name"])
    bad: list[str] = []
    if edp_id is None:
        bad.append(f"edp_id is not a whole number: {row['edp_id']!r}")
    if name is None:
        bad.append("edp_name is empty")
    dates: dict[str, date] = {}
    for col in ("edp_start_date", "charge_valid_from", "charge_valid_to"):
        try:
            dates[col] = stored_date(row[col])
        except ValueError:
            bad.append(f"{col} is not a YYYY-MM-DD date: {row[col]!r}")
    try:
        base = decimal_text(row["base_charge_per_unit"])
    except ValueError:
        bad.append(
            "base_charge_per_unit is not decimal text such as '2675.0000': "
            f"{row['base_charge_per_unit']!r}"
        )
        base = None
    if base is not None and base <= 0:
        bad.append(f"base_charge_per_unit {base} is not above zero")
    if len(dates) == 3 and dates["charge_valid_to"] < dates["charge_valid_from"]:
        bad.append(
            f"charge_valid_to {dates['charge_valid_to']} is before "
            f"charge_valid_from {dates['charge_valid_from']}"
        )
    problems += [f"{where}: {b}" for b in bad]
    if bad or edp_id is None or name is None or base is None:
        return None
    return LevyCharge(edp_id=edp_id, edp_name=name, base_charge_per_unit=base, **dates)


def levy_charges(rows: Iterable[Row], problems: list[str]) -> tuple[LevyCharge, ...]:
    """Each EDP's charging windows; two windows of one EDP that share a day are refused."""
    out: list[LevyCharge] = []
    for row in rows:
        charge = _charge(row, problems)
        if charge is None:
            continue
        for other in out:
            if other.edp_id == charge.edp_id and (
                other.charge_valid_from <= charge.charge_valid_to
                and charge.charge_valid_from <= other.charge_valid_to
            ):
                problems.append(
                    f"table 'levy_charges' row {row['_key']}: the window "
                    f"{charge.charge_valid_from} to {charge.charge_valid_to} of edp_id "
                    f"{charge.edp_id} overlaps {other.charge_valid_from} to "
                    f"{other.charge_valid_to}"
                )
        out.append(charge)
    return tuple(out)


def inflation_index(rows: Iterable[Row], problems: list[str]) -> Mapping[int, IndexRow]:
    """The RICS CIL index by charging year; a year listed twice or a factor not above 0 refused."""
    out: dict[int, IndexRow] = {}
    for row in rows:
        where = f"table 'levy_inflation_index' row {row['_key']}"
        year = whole_number(row["charging_year"])
        try:
            cil, factor = decimal_text(row["cil_index"]), decimal_text(row["index_factor"])
        except ValueError:
            problems.append(
                f"{where}: cil_index and index_factor must be decimal text: "
                f"{row['cil_index']!r}, {row['index_factor']!r}"
            )
            continue
        if year is None:
            problems.append(f"{where}: charging_year is not a year: {row['charging_year']!r}")
        elif year in out:
            problems.append(f"{where}: charging_year {year} is listed twice")
        elif factor <= 0:
            problems.append(f"{where}: index_factor {factor} is not above zero")
        else:
            out[year] = IndexRow(charging_year=year, cil_index=cil, index_factor=factor)
    return MappingProxyType(out)


def vat_rate(rows: Iterable[Row], problems: list[str]) -> Decimal | None:
    """The ``vat_rate`` setting (0.20 is 20 %), exactly once and within [0, 1]."""
    values = [r["value"] for r in rows if text_or_none(r["key"]) == "vat_rate"]
    if len(values) != 1:
        problems.append(
            f"table 'levy_settings' must hold one 'vat_rate' row; it holds {len(values)}"
        )
        return None
    try:
        rate = decimal_text(values[0])
    except ValueError:
        rate = None
    if rate is None or not Decimal(0) <= rate <= Decimal(1):
        problems.append(
            f"table 'levy_settings': vat_rate must be decimal text in [0, 1]: {values[0]!r}"
        )
        return None
    return rate


def levy_rounding(rows: Iterable[Row], problems: list[str]) -> LevyRounding:
    """The ``levy_rounding`` setting: at most once, a rule's name; a bundle without it was
    built under the per-unit rule and keeps it (``nrf.domain.levy_rounding.UNSTATED``)."""
    values = [r["value"] for r in rows if text_or_none(r["key"]) == SETTING]
    if not values:
        return UNSTATED
    if len(values) > 1:
        problems.append(f"table 'levy_settings' holds {len(values)} '{SETTING}' rows, not 1")
        return UNSTATED
    try:
        return levy_rounding_named(str(values[0]))
    except ValueError as exc:
        problems.append(f"table 'levy_settings': {exc}")
        return UNSTATED


def edp_names(rows: Iterable[Row], problems: list[str]) -> Mapping[int, str]:
    """Every EDP id of the layer and its name; one id under two names is refused."""
    out: dict[int, str] = {}
    for row in rows:
        edp_id, name = whole_number(row["edp_id"]), text_or_none(row["edp_name"])
        if edp_id is None or name is None:
            continue  # named, with its fid, when the layer's features are read
        if out.setdefault(edp_id, name) != name:
            problems.append(
                f"layer 'edp_boundaries' fid {row['_key']}: edp_id {edp_id} is named "
                f"{name!r} here and {out[edp_id]!r} elsewhere"
            )
    return MappingProxyType(out)
