"""Run every quality-gate rule over a bundle GeoPackage (staged by a build, or finished).

Every rule runs even after others fail, so one report names every fault; only a bundle whose
schema the reader would refuse stops early, since the other rules have nothing to read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from pathlib import Path

from nrf.adapters.boundary_data.geopackage_schema import LAYERS, TABLES, check_schema, q
from nrf.bundles.qc.coefficients import LAYER, check_values
from nrf.bundles.qc.edp_layers import check_edp_boundaries, check_excluded_areas
from nrf.bundles.qc.levy_schedule import check_charges, check_index, check_settings
from nrf.bundles.qc.not_run import runnable
from nrf.bundles.qc.report import QcReport
from nrf.bundles.qc.small_layer_checks import KEYS, check_small_layers
from nrf.bundles.qc.tables import check_permits, check_rates
from nrf.bundles.qc.tiles import Progress, check_tiles

COUNTED = [name for name in (*LAYERS, *TABLES) if name != "bundle_info"]
# An empty layer of these is no fault: a delivery may exclude no area.
MAY_BE_EMPTY = {"excluded_areas"}
MIN_SHARE_OF_PREVIOUS = 0.9


def row_counts(db: sqlite3.Connection) -> dict[str, int]:
    """Rows of every counted layer and table that exists (names matched case-insensitively)."""
    names = {
        str(n).casefold(): str(n)
        for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    return {
        name: int(db.execute(f"SELECT count(*) FROM {q(names[name])}").fetchone()[0])
        for name in COUNTED
        if name in names
    }


def previous_counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return row_counts(db)
    finally:
        db.close()


def check_counts(counts: dict[str, int], previous: dict[str, int] | None, report: QcReport) -> None:
    for name, n in counts.items():
        if n == 0 and name not in MAY_BE_EMPTY:
            report.add("empty", name, "-", "no rows")
        before = (previous or {}).get(name, 0)
        if before and n < MIN_SHARE_OF_PREVIOUS * before:
            report.add(
                "shrunk", name, "-", f"{n:,} rows, {n / before:.1%} of the previous {before:,}"
            )
    report.figures["rows"] = counts
    if previous is not None:
        report.figures["previous_rows"] = previous


def only_tables(db: sqlite3.Connection, report: QcReport) -> bool:
    """Every layer and table the reader needs is stored, not computed: a view of that name
    (a recursive one never ends: the gate hung on one named levy_charges) or a virtual table
    is a schema finding, and nothing is read from it."""
    needed = {name.casefold() for name in (*LAYERS, *TABLES)}
    found = db.execute(
        "SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view')"
    ).fetchall()
    computed = [
        (str(name), "view" if kind == "view" else "virtual table")
        for name, kind, sql in found
        if str(name).casefold() in needed
        and (kind == "view" or str(sql or "").upper().lstrip().startswith("CREATE VIRTUAL"))
    ]
    for name, kind in computed:
        report.add("schema", "bundle", name, f"{name} is a {kind}, not a table: rebuild the bundle")
    return not computed


def run_gate(
    db: sqlite3.Connection,
    report: QcReport,
    *,
    previous: dict[str, int] | None = None,
    progress: Progress | None = None,
    processes: int | None = None,
    unread: Collection[str] = (),
) -> None:
    """Add every finding about the bundle behind ``db`` to ``report``; a build names the layers
    it could not read (staged empty) in ``unread``, and the rules that need them are not run."""
    if not only_tables(db, report):
        return
    schema, problems = check_schema(db)
    for problem in problems:
        report.add("schema", "bundle", "-", problem)
    if problems:
        return
    counts = {name: n for name, n in row_counts(db).items() if name not in unread}
    check_counts(counts, previous, report)
    small = check_small_layers(db, schema, report)  # an unread layer is empty: nothing found
    for layer in KEYS:
        runnable(f"{layer} rules", unread, report)
    if runnable("permit rules", unread, report):
        check_permits(db, schema, small, report)
    if runnable("rates rules", unread, report):
        check_rates(db, schema, small, report)
    edps = check_edp_boundaries(db, schema["edp_boundaries"], report)
    runnable("EDP rules", unread, report)
    if runnable("excluded area rules", unread, report):
        check_excluded_areas(db, schema["excluded_areas"], report)
    years = check_index(db, schema["levy_inflation_index"], report)
    runnable("inflation index rules", unread, report)
    if runnable("charge rules", unread, report):
        check_charges(db, schema["levy_charges"], edps, years, report)
    check_settings(db, schema["levy_settings"], report)
    if runnable("coefficient value rules", unread, report):
        check_values(db, schema[LAYER], report)
    if runnable("coefficient geometry, overlap and coverage rules", unread, report):
        check_tiles(db, schema[LAYER], small.catchments, report, progress, processes)
