"""Clean the delivered lookups into bundle tables, listing every value that was changed or dropped.

The real exports are dirty (codes as "\\t11307" or 1065.0, NULL codes on package-plant rows,
duplicate codes, trailing spaces, NULL concentrations). Each documented cleaning is recorded as
a ``cleaned`` finding, never swallowed; anything not covered by a rule is an error. Findings
name columns as delivered (Defra's names, or those the manifest gives), never the bundle's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nrf.adapters.boundary_data import geopackage_cells
from nrf.bundles.geopackage_writer import Table
from nrf.bundles.manifest import FIRST_WINS, Manifest
from nrf.bundles.qc.report import QcReport
from nrf.domain.model import category_key

PERMITS, RATES = "wwtw_permits", "occupancy_rates"
PACKAGE_PLANT = "Package Treatment Plant default"
CONCENTRATIONS = ("n_conc_2025_2030", "n_conc_2030_on", "p_conc_2025_2030", "p_conc_2030_on")
Row = dict[str, Any]


def fits_integer(number: int) -> bool:
    """An id SQLite can store (a 64-bit integer); "1e30" is a whole number but no id."""
    return -(2**63) <= number < 2**63


def where_delivered(manifest: Manifest, key: str, role: str, row: object) -> str:
    """Where a value was delivered, in the delivery's own names: "`Nitrogen_2030_onwards` in
    `WwTw_lookup` of `nutrients/SQL_Lookups/Interim_coeffs.sqlite` row 3"."""
    source = manifest.sources[key]
    return f"`{source.columns[role]}` in `{source.layer}` of `{source.path}` row {row}"


def column(manifest: Manifest, key: str, role: str) -> str:
    """The delivered name of ``role``'s column: Defra's, or the one the manifest gives."""
    return manifest.sources[key].columns[role]


def not_a_number(value: object, example: str) -> str:
    """Why a value is refused and what to write instead ("write a plain number, e.g. 10")."""
    text = str(value).strip()
    without = " without '%' (this column is no percentage)" if text.endswith("%") else ""
    return f"{value!r} is not a number: write a plain number{without}, e.g. {example}"


def stripped(value: object, table: str, where: str, column: str, report: QcReport) -> str | None:
    """Text without surrounding whitespace; a change is recorded."""
    text = geopackage_cells.text_or_none(value)
    if isinstance(value, str) and text is not None and text != value:
        report.add("cleaned", table, where, f"{column} {value!r} stripped to {text!r}")
    return text


def _code(row: Row, manifest: Manifest, report: QcReport) -> int | None:
    raw, where = row["wwtw_code"], f"row {row['_row']}"
    code_column = column(manifest, PERMITS, "wwtw_code")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        if category_key(str(row["wwtw_name"] or "")) == category_key(PACKAGE_PLANT):
            report.add(
                "cleaned",
                PERMITS,
                where,
                "NULL code on a 'Package Treatment Plant "
                "default' row: dropped (works 141 carries the default)",
            )
        else:
            report.add("key_missing", PERMITS, where, f"{code_column} is NULL")
        return None
    code = geopackage_cells.whole_number(raw)
    if code is not None and not fits_integer(code):
        report.add(
            "key_missing", PERMITS, where, f"{code_column} {raw!r} is too large to be a code"
        )
        return None
    if code is None:
        report.add("key_missing", PERMITS, where, f"{code_column} {raw!r} is not a whole number")
    elif str(raw) != str(code):
        report.add("cleaned", PERMITS, code, f"{where}: {code_column} {raw!r} read as {code}")
    return code


def _differences(first: tuple[object, ...], then: tuple[object, ...], manifest: Manifest) -> str:
    """Each value that differs, by its delivered column: "`Nitrogen_2025_2030` 27.0 vs 99.0"."""
    roles = ("wwtw_code", "wwtw_name", "subcatchment", *CONCENTRATIONS)
    return "; ".join(
        f"`{column(manifest, PERMITS, role)}` {a!r} vs {b!r}"
        for role, a, b in zip(roles, first, then, strict=True)
        if a != b
    )


# Long: each known dirt of Defra's permits table cleaned and listed where it is met.
def clean_permits(rows: Sequence[Row], manifest: Manifest, report: QcReport) -> Table:
    """One row per works code; duplicates dropped when identical, else by the manifest policy."""
    kept: dict[int, tuple[tuple[object, ...], int]] = {}
    out: list[tuple[object, ...]] = []
    names = manifest.sources[PERMITS].columns
    for row in rows:
        code = _code(row, manifest, report)
        if code is None:
            continue
        where = f"row {row['_row']}"
        conc: list[float | None] = []
        refused: set[str] = set()
        for column in CONCENTRATIONS:
            try:
                conc.append(geopackage_cells.number(row[column]))
            except ValueError:
                place = where_delivered(manifest, PERMITS, column, row["_row"])
                why = not_a_number(row[column], "10")
                report.add("value_invalid", PERMITS, code, f"{place}: {why} (mg/l)")
                refused.add(column)
                conc.append(None)
        # A refused value is reported once: not also listed as a NULL that means "no load".
        nulls = [
            c for c, v in zip(CONCENTRATIONS, conc, strict=True) if v is None and c not in refused
        ]
        if nulls:
            shown = ", ".join(names[c] for c in nulls)
            report.add("cleaned", PERMITS, code, f"{where}: NULL {shown} = no load")
        values = (
            code,
            stripped(row["wwtw_name"], PERMITS, str(code), names["wwtw_name"], report) or "",
            stripped(row["subcatchment"], PERMITS, str(code), names["subcatchment"], report),
            *conc,
        )
        if code in kept:
            first, first_row = kept[code]
            if first == values:
                report.add("cleaned", PERMITS, code, f"{where} repeats row {first_row}: dropped")
            elif manifest.duplicate_works == FIRST_WINS:
                report.add(
                    "cleaned",
                    PERMITS,
                    code,
                    f"{where} disagrees with row {first_row}: "
                    "ignored, first row kept (manifest duplicate_works = first_wins)",
                )
            else:
                report.add(
                    "works_code_conflict",
                    PERMITS,
                    code,
                    f"rows {first_row} and {row['_row']} of `{manifest.sources[PERMITS].layer}` "
                    f"disagree: {_differences(first, values, manifest)}",
                )
            continue
        kept[code] = (values, row["_row"])
        out.append((*values, row["_row"], geopackage_cells.text_or_none(row["wwtw_code"])))
    if 141 not in kept:
        table, code_column = manifest.sources[PERMITS].layer, names["wwtw_code"]
        report.add(
            "fallback_missing",
            PERMITS,
            141,
            f"no `{table}` row has `{code_column}` 141 (package plants)",
        )
    columns = [("wwtw_id", "INTEGER"), ("wwtw_name", "TEXT"), ("wwtw_subcatchment", "TEXT")]
    columns += [(c, "REAL") for c in CONCENTRATIONS]
    columns += [("source_row", "INTEGER"), ("source_code", "TEXT")]
    return Table(PERMITS, columns, out)


def _rate(row: Row, manifest: Manifest, report: QcReport) -> tuple[float, float] | None:
    """Occupancy and water of a rates row; each unusable value reported with what to write."""
    found: list[float] = []
    for role, example in (("occupancy", "2.4 persons per dwelling"), ("water", "120 l/day")):
        place = where_delivered(manifest, RATES, role, row["_row"])
        name = geopackage_cells.text_or_none(row["nn_catchment"])
        place += f" ({column(manifest, RATES, 'nn_catchment')} '{name}')" if name else ""
        try:
            value = geopackage_cells.number(row[role])
        except ValueError:
            report.add(
                "value_invalid",
                RATES,
                f"row {row['_row']}",
                f"{place}: {not_a_number(row[role], example)}",
            )
            continue
        if value is None or value < 0:
            report.add(
                "value_invalid",
                RATES,
                f"row {row['_row']}",
                f"{place}: {row[role]!r} is {'blank' if value is None else 'negative'}: write "
                f"a number, e.g. {example}",
            )
            continue
        found.append(value)
    return (found[0], found[1]) if len(found) == 2 else None


def clean_rates(
    rows: Sequence[Row], manifest: Manifest, default: tuple[float, float] | None, report: QcReport
) -> Table:
    """Catchment rows, category rows (names listed in the manifest) and the given default."""
    categories = {category_key(c) for c in manifest.dwelling_categories}
    out: list[tuple[object, ...]] = []
    seen: dict[str, tuple[float, float]] = {}
    catchment = column(manifest, RATES, "nn_catchment")
    for row in rows:
        name = stripped(row["nn_catchment"], RATES, f"row {row['_row']}", catchment, report)
        rate = _rate(row, manifest, report)
        if name is None:
            report.add("key_missing", RATES, f"row {row['_row']}", f"{catchment} is NULL")
            continue
        if rate is None:
            continue
        if name.casefold() == "default":
            if default is None:
                default = rate
            else:
                report.add(
                    "cleaned",
                    RATES,
                    name,
                    f"row {row['_row']}: the default given to "
                    "the build (option or manifest) replaces this row",
                )
            continue
        key = category_key(name)
        if key in seen:
            code = "cleaned" if seen[key] == rate else "key_duplicate"
            report.add(code, RATES, name, f"row {row['_row']} repeats '{name}': first row kept")
            continue
        seen[key] = rate
        is_category = key in categories
        out.append(
            (None if is_category else name, name if is_category else None, *rate, row["_row"])
        )
    if default is None:
        report.add(
            "no_default_occupancy",
            RATES,
            "default",
            "the lookups carry no default "
            "occupancy row: give --default-occupancy 2.4 --default-water-usage 120 (or "
            "default_occupancy / default_water_usage under [options] in the manifest)",
        )
    else:
        out.append(("default", None, *default, None))
    columns = [
        ("nn_catchment", "TEXT"),
        ("dwelling_category", "TEXT"),
        ("occupancy_rate", "REAL"),
        ("water_usage_l_per_person_day", "REAL"),
        ("source_row", "INTEGER"),
    ]
    return Table(RATES, columns, out)
