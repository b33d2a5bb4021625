"""Rules over the lookup tables: usable values, and every reference points at something real.

Findings name the columns and the table as delivered (`WwTW_code` in `WwTw_lookup`), as the
build recorded them, not the bundle's `wwtw_id` in `wwtw_permits`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from nrf.adapters.boundary_data import geopackage_cells, geopackage_lookups
from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.bundles.qc.delivered_column import ColumnNames, column_names
from nrf.bundles.qc.delivered_file import delivered_file
from nrf.bundles.qc.plausible import check_plausible
from nrf.bundles.qc.report import QcReport
from nrf.bundles.qc.small_layer_checks import SmallLayers
from nrf.domain.model import category_key

FALLBACK_WORKS = 141
PACKAGE_PLANT = category_key("Package Treatment Plant default")
PERMITS, RATES = "wwtw_permits", "occupancy_rates"


def _rows(db: sqlite3.Connection, t: TableSchema) -> list[dict[str, Any]]:
    """Rows as {column: value, "_key": fid, "_source_row": the delivered rowid or None}."""
    have = {str(r[1]).casefold() for r in db.execute(f"PRAGMA table_info({q(t.name)})")}
    source = "source_row" if "source_row" in have else "NULL"
    names = ", ".join(q(c) for c in t.columns.values())
    sql = f"SELECT {q(t.key)}, {source}, {names} FROM {q(t.name)} ORDER BY {q(t.key)}"
    return [
        {"_key": r[0], "_source_row": r[1], **dict(zip(t.columns, r[2:], strict=True))}
        for r in db.execute(sql)
    ]


def _permits(
    rows: list[dict[str, Any]],
    small: SmallLayers,
    report: QcReport,
    named: ColumnNames,
    member: str | None,
    works_id: str,
) -> None:
    first: dict[int, tuple[object, ...]] = {}
    layer = "wwtw_permits"
    # The delivery's own names (Defra's where the bundle recorded none): what a data manager opens.
    table, code_name = member or "WwTw_lookup", f"`{named('wwtw_id', 'WwTW_code')}`"
    for row in rows:
        code = geopackage_cells.whole_number(row["wwtw_id"])
        if code is None:
            where = f"row {row['_key']}"
            if row["wwtw_id"] is None and category_key(str(row["wwtw_name"])) == PACKAGE_PLANT:
                report.add("cleaned", layer, where, "NULL id on a package-plant row: ignored")
            else:
                column = named("wwtw_id")
                report.add("key_missing", layer, where, f"{column} {row['wwtw_id']!r}")
            continue
        values = tuple(row[c] for c in geopackage_lookups.CONCENTRATIONS)
        _numbers(values, code, report, named)
        if code in first:
            if first[code] != values:
                report.add(
                    "works_code_conflict",
                    layer,
                    code,
                    f"row {row['_key']} disagrees with an earlier row of the same works",
                )
            continue
        first[code] = values
        if code != FALLBACK_WORKS and code not in small.works_ids:
            row_no = row["_source_row"]
            at = f"`{table}` row {row_no}: " if row_no is not None else ""
            report.add(
                "ref_works",
                layer,
                code,
                f"{at}{code_name} {code} is no works polygon's id ({works_id} of wwtw_catchments)",
            )
    _permit_gaps(set(first), small, report, table, code_name)


def _numbers(values: tuple[object, ...], code: int, report: QcReport, named: ColumnNames) -> None:
    """Each concentration of a permit row must be a number."""
    for column, value in zip(geopackage_lookups.CONCENTRATIONS, values, strict=True):
        try:
            geopackage_cells.number(value)
        except ValueError:
            report.add(
                "value_invalid", "wwtw_permits", code, f"{named(column)} {value!r} is not a number"
            )


def _permit_gaps(
    permitted: set[int], small: SmallLayers, report: QcReport, table: str, code_name: str
) -> None:
    """The package-plant default and every works polygon need a permit row."""
    if FALLBACK_WORKS not in permitted:
        report.add(
            "fallback_missing",
            "wwtw_permits",
            FALLBACK_WORKS,
            f"no `{table}` row has {code_name} 141 (the package-plant default)",
        )
    for works in sorted(small.works_ids - permitted):
        report.add(
            "works_without_permit",
            "wwtw_catchments",
            works,
            f"no `{table}` row has {code_name} {works}: a site draining to it gets no wastewater "
            "load (as in Defra's tool), or is out of scope outside the NN catchments",
        )


def _rates(rows: list[dict[str, Any]], small: SmallLayers, report: QcReport) -> None:
    problems: list[str] = []
    rates = geopackage_lookups.rates(rows, problems)
    for problem in problems:
        code = "no_default_occupancy" if "no 'default' row" in problem else "value_invalid"
        report.add(code, "occupancy_rates", problem.split(":")[0], problem)
    if rates is None:
        return
    for name in rates.by_catchment:
        if name not in small.catchments and name not in small.edp_by_name:
            report.add(
                "ref_rates_catchment", "occupancy_rates", name, "no NN catchment of that name"
            )


def check_permits(
    db: sqlite3.Connection, schema: dict[str, TableSchema], small: SmallLayers, report: QcReport
) -> None:
    permits, named = _rows(db, schema[PERMITS]), column_names(db, PERMITS)
    source = delivered_file(db, PERMITS)
    works_id = f"`{column_names(db, 'wwtw_catchments')('wwtw_id', 'WwTw_ID')}`"
    member = None if source is None else source.layer
    _permits(permits, small, report, named, member, works_id)
    check_plausible(PERMITS, permits, report, named, source)


def check_rates(
    db: sqlite3.Connection, schema: dict[str, TableSchema], small: SmallLayers, report: QcReport
) -> None:
    rates = _rows(db, schema[RATES])
    _rates(rates, small, report)
    check_plausible(RATES, rates, report, column_names(db, RATES), delivered_file(db, RATES))
