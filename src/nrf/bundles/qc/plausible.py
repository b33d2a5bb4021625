"""Values that parse as numbers but cannot be true are refused: a typo must not price a quote.

The bounds are generous on purpose: several times anything real, so no real delivery trips
them, yet a slipped decimal point, a sign or 1e308 does. Concentrations: treated effluent is
permitted at tens of mg/l and raw sewage carries about 60 mg/l N and 10 mg/l P, so the limits
are 200 mg/l N and 50 mg/l P. Occupancy: persons per dwelling in (0, 20]. Water: litres per
person per day in (0, 1,000] (a home uses about 120, a hotel about 240).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from nrf.adapters.boundary_data import geopackage_cells
from nrf.bundles.manifest import DEFAULT_SOURCES
from nrf.bundles.qc.delivered_column import ColumnNames
from nrf.bundles.qc.delivered_file import DeliveredFile
from nrf.bundles.qc.report import QcReport

# (table, column) -> (lowest, highest, whether the lowest itself is allowed, unit)
BOUNDS: dict[tuple[str, str], tuple[float, float, bool, str]] = {
    ("wwtw_permits", "n_conc_2025_2030"): (0.0, 200.0, True, "mg/l"),
    ("wwtw_permits", "n_conc_2030_on"): (0.0, 200.0, True, "mg/l"),
    ("wwtw_permits", "p_conc_2025_2030"): (0.0, 50.0, True, "mg/l"),
    ("wwtw_permits", "p_conc_2030_on"): (0.0, 50.0, True, "mg/l"),
    ("occupancy_rates", "occupancy_rate"): (0.0, 20.0, False, "persons per dwelling"),
    ("occupancy_rates", "water_usage_l_per_person_day"): (0.0, 1000.0, False, "l/person/day"),
}
KEYS = {"wwtw_permits": "wwtw_id", "occupancy_rates": None}
# bundle column -> the manifest role it was read from, for Defra's default name when the bundle
# recorded no delivered names (built before `bundle_columns`)
ROLES = {"occupancy_rate": "occupancy", "water_usage_l_per_person_day": "water"}


def delivered(
    table: str,
    column: str,
    row: Mapping[str, Any],
    named: ColumnNames,
    source: DeliveredFile | None,
) -> tuple[str, str]:
    """("`Phosphorus_2030_onwards`", " (in `WwTw_lookup` of `nutrients/.../Interim_coeffs.sqlite`
    row 14)"): the column and table as the build recorded them (else Defra's default names), when
    the bundle recorded the delivered row; the bundle's column and "" for one built elsewhere."""
    if row.get("_source_row") is None:
        return column, ""
    default = DEFAULT_SOURCES[table]
    name = named(column, default.columns.get(ROLES.get(column, column), column))
    inside = (source.layer if source is not None else None) or default.layer
    of = f" of `{source.path}`" if source is not None else ""
    return f"`{name}`", f" (in `{inside}`{of} row {row['_source_row']})"


def _key(table: str, row: Mapping[str, Any]) -> object:
    column = KEYS[table]
    if column is None:  # a rates row: its catchment, its category, or the default
        return row.get("nn_catchment") or row.get("dwelling_category") or f"row {row['_key']}"
    return row.get(column) if row.get(column) is not None else f"row {row['_key']}"


def check_plausible(
    table: str,
    rows: Iterable[Mapping[str, Any]],
    report: QcReport,
    named: ColumnNames,
    source: DeliveredFile | None = None,
) -> None:
    """A value_invalid finding for every number outside its table's bounds, named as delivered
    (``named``; ``source`` is the delivered file and table, when the bundle recorded them)."""
    bounds = {column: b for (t, column), b in BOUNDS.items() if t == table}
    for row in rows:
        for column, (low, high, low_ok, unit) in bounds.items():
            try:
                value = geopackage_cells.number(row.get(column))
            except ValueError:
                continue  # not a number at all: reported by the table's own rule
            if value is None:
                continue
            if value > high or value < low or (value == low and not low_ok):
                shown = "[" if low_ok else "("
                name, where = delivered(table, column, row, named, source)
                report.add(
                    "value_invalid",
                    table,
                    _key(table, row),
                    f"{name} = {value:g} {unit}{where} is outside {shown}{low:g}, {high:g}]: "
                    "a slipped decimal point or a sign?",
                )
