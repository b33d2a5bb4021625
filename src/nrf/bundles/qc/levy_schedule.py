"""Rules over the charging schedule, the CIL index, the VAT rate and the rounding rule.

A quote takes the one charge of its EDP whose window covers the quote date, so windows of one
EDP must not share a day (two charges would fit) and must run forwards; a charge must be money
above nothing, for an EDP the layer holds. Each index year appears once, or indexing would
depend on row order. A row refused for a bad value is judged no further (no cascade), and each
finding names the delivered file and line, the row's own key, and what to write instead, with
every column as delivered (the CSV header's names, which a manifest may rename).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from nrf.adapters.boundary_data import geopackage_cells, geopackage_lookups
from nrf.adapters.boundary_data.geopackage_schema import TableSchema, q
from nrf.bundles.qc.charge_spool import Charge, ChargeSpool
from nrf.bundles.qc.delivered_column import ColumnNames, column_names
from nrf.bundles.qc.delivered_file import delivered_file
from nrf.bundles.qc.report import QcReport
from nrf.bundles.schedule_values import PLACES, iso_date_or_none, places, plain_decimal
from nrf.domain.levy_rounding import SETTING

CHARGES, INDEX, SETTINGS = "levy_charges", "levy_inflation_index", "levy_settings"
# The delivered file each table came from, as `bundle_sources` names its role.
ROLES = {CHARGES: "levy_charges", INDEX: "inflation_index"}
DATES = ("edp_start_date", "charge_valid_from", "charge_valid_to")
# The most a unit may be charged: far above any plausible charge, and far below where a
# quote's Decimal arithmetic (28 digits) fails: 32 nines passed the gate and every quote of
# that EDP was a 500.
MOST_PER_UNIT = Decimal(1_000_000)


def _delivered(db: sqlite3.Connection, table: str) -> str:
    """The delivered file as the build recorded it (inside the delivery: its path there; a CSV
    given from elsewhere: its name); else the table's."""
    source = delivered_file(db, ROLES.get(table, table))
    return source.path if source is not None else f"table {table}"


def _rows(db: sqlite3.Connection, t: TableSchema) -> Iterator[dict[str, Any]]:
    """Rows as {column: value, "_place": "<file> line N" (or "<table> fid N")}, one at a time."""
    have = {str(r[1]).casefold() for r in db.execute(f"PRAGMA table_info({q(t.name)})")}
    line = ", source_line" if "source_line" in have else ", NULL"
    names = ", ".join(q(c) for c in t.columns.values())
    sql = f"SELECT {q(t.key)}{line}, {names} FROM {q(t.name)} ORDER BY {q(t.key)}"
    file = _delivered(db, t.name)
    for fid, source_line, *values in db.execute(sql):
        place = f"{file} line {source_line}" if source_line is not None else f"{file} fid {fid}"
        yield {"_place": place, **dict(zip(t.columns, values, strict=True))}


# Long: every column of a charge row checked, collecting all problems into one finding.
def _charge(
    row: dict[str, Any], named: ColumnNames, edp_layer: ColumnNames, report: QcReport
) -> Charge | None:
    """The row as a Charge, or None with one charge_invalid finding naming every bad value."""
    key = f"{named('edp_id')} {row['edp_id']} from {row['charge_valid_from']}"
    problems = []
    edp = geopackage_cells.whole_number(row["edp_id"])
    edp_id, edp_name = edp_layer("edp_id", "EDP_Id"), edp_layer("edp_name", "EDP_Name")
    if edp is None:
        problems.append(
            f"{named('edp_id')} {row['edp_id']!r} is no whole number: write the {edp_id}, e.g. 1"
        )
    name = geopackage_cells.text_or_none(row["edp_name"])
    if name is None:
        problems.append(f"{named('edp_name')} is blank: write the {edp_name} of the EDP layer")
    dates = {c: iso_date_or_none(row[c]) for c in DATES}
    for column, value in dates.items():
        if value is None:
            problems.append(
                f"{named(column)} {row[column]!r} is no date: write YYYY-MM-DD, e.g. 2026-04-01"
            )
    base = plain_decimal(row["base_charge_per_unit"])
    shown = f"{named('base_charge_per_unit')} {row['base_charge_per_unit']!r}"
    if base is None:
        problems.append(f"{shown} is not a decimal: write pounds per unit, e.g. 2675.0000")
    elif base <= 0:
        problems.append(f"{shown} is not above 0")
    elif base > MOST_PER_UNIT:
        problems.append(
            f"{shown} is over £{MOST_PER_UNIT:,} a unit, far beyond any charge (Defra's are "
            "thousands): write pounds per unit, e.g. 2675.0000"
        )
    elif places(base) > PLACES:
        problems.append(
            f"{shown} has {places(base)} decimal places; the schedule keeps {PLACES}: write it "
            "as Defra publishes it"
        )
    if problems:
        report.add("charge_invalid", CHARGES, key, f"{row['_place']}: " + "; ".join(problems))
        return None
    assert base is not None
    if base != base.to_integral_value():
        # Priced as written, never quietly rounded: the data manager decides.
        report.add(
            "charge_not_whole_pounds",
            CHARGES,
            key,
            f"{row['_place']}: {shown} is not whole pounds; Defra's calculator refuses such a "
            "charge: write the published whole-pound charge, or keep it knowingly",
        )
    assert edp is not None and name is not None
    start, valid_from, valid_to = (dates[c] for c in DATES)
    assert start is not None and valid_from is not None and valid_to is not None
    return Charge(
        edp_id=edp,
        edp_name=name,
        start=start,
        valid_from=valid_from,
        valid_to=valid_to,
        key=key,
        place=row["_place"],
    )


def _windows(charges: ChargeSpool, named: ColumnNames, report: QcReport) -> None:
    """Reversed windows, then every pair of one EDP's forward windows that share a day."""
    for c in charges.reversed_windows():
        report.add(
            "charge_window_reversed",
            CHARGES,
            c.key,
            f"{c.place}: {named('charge_valid_to')} {c.valid_to} is before "
            f"{named('charge_valid_from')} {c.valid_from}: swap them, or correct the year",
        )
    for first, later in charges.overlaps():
        report.add(
            "charge_overlap",
            CHARGES,
            later.key,
            f"{later.place}: {later.valid_from}..{later.valid_to} shares days with "
            f"{first.place}'s {first.valid_from}..{first.valid_to}: end the earlier "
            "window the day before the later one starts",
        )


def _edp_named(
    c: Charge, edps: Mapping[int, str], named: ColumnNames, edp_layer: ColumnNames, report: QcReport
) -> None:
    """The charge's EDP is in the EDP layer, under the name the charge gives it."""
    edp_id = edp_layer("edp_id", "EDP_Id")
    if c.edp_id not in edps:
        report.add(
            "ref_charge_edp",
            CHARGES,
            c.key,
            f"{c.place}: the EDP layer has no {edp_id} {c.edp_id} ('{c.edp_name}')",
        )
    elif edps[c.edp_id] != c.edp_name:
        report.add(
            "ref_charge_edp",
            CHARGES,
            c.key,
            f"{c.place}: {named('edp_name')} '{c.edp_name}', but the EDP layer names "
            f"{edp_id} {c.edp_id} '{edps[c.edp_id]}'",
        )


def check_charges(
    db: sqlite3.Connection,
    t: TableSchema,
    edps: Mapping[int, str],
    index_years: set[int],
    report: QcReport,
) -> None:
    named, edp_layer = column_names(db, ROLES[CHARGES]), column_names(db, "edp_boundaries")
    with contextlib.closing(ChargeSpool()) as charges:
        for row in _rows(db, t):
            charge = _charge(row, named, edp_layer, report)
            if charge is not None:
                charges.add(charge)
        _windows(charges, named, report)
        for c in charges:
            if c.start.year not in index_years:
                report.add(
                    "index_year_missing",
                    CHARGES,
                    c.key,
                    f"{c.place}: {named('edp_start_date')} {c.start} is in {c.start.year}, "
                    "which the inflation index does not list: a quote in any later year is "
                    "refused (inflation_index_missing); add the year's row to the index",
                )
        for c in charges:
            _edp_named(c, edps, named, edp_layer, report)
    column = q(t.columns["edp_id"])
    mentioned = {
        geopackage_cells.whole_number(v)
        for (v,) in db.execute(f"SELECT DISTINCT {column} FROM {q(t.name)}")
    }
    # An id whose EDP name is charged under another id is an edp_id_conflict, already reported.
    charged = {edps[e] for e in mentioned if e is not None and e in edps}
    for edp, name in sorted(edps.items()):
        if edp not in mentioned and name not in charged:
            report.add(
                "charge_missing", CHARGES, f"{named('edp_id')} {edp}", f"'{name}' has no charge row"
            )


def _positive(value: object, most_places: int | None = None) -> bool:
    number = plain_decimal(value)
    fits = most_places is None or (number is not None and places(number) <= most_places)
    return number is not None and number > 0 and fits


def check_index(db: sqlite3.Connection, t: TableSchema, report: QcReport) -> set[int]:
    """Every row usable, each year once; returns the years listed."""
    years: dict[int, list[str]] = defaultdict(list)
    named = column_names(db, ROLES[INDEX])
    year_column = named("charging_year")
    for row in _rows(db, t):
        year = geopackage_cells.whole_number(row["charging_year"])
        key = f"{year_column} {row['charging_year']}"
        problems = []
        if year is None:
            problems.append(f"{year_column} {row['charging_year']!r} is no year, e.g. 2027")
        if not _positive(row["cil_index"]):
            problems.append(f"{named('cil_index')} {row['cil_index']!r} is not a decimal above 0")
        if not _positive(row["index_factor"], PLACES):
            factor = str(row["index_factor"]).strip()
            fix = (
                f": write the factor, e.g. 1.0300, not {factor}"
                if factor.endswith("%")
                else " (2026 is 1.0000)"
            )
            problems.append(
                f"{named('index_factor')} {row['index_factor']!r} is not a decimal above 0 with "
                f"at most {PLACES} places{fix}"
            )
        if problems:
            report.add("index_invalid", INDEX, key, f"{row['_place']}: " + "; ".join(problems))
        if year is not None:
            years[year].append(row["_place"])
    for year, places_seen in sorted(years.items()):
        if len(places_seen) > 1:
            report.add(
                "index_year_duplicate",
                INDEX,
                f"{year_column} {year}",
                f"listed {len(places_seen)} times ({', '.join(places_seen)}): keep one row",
            )
    return set(years)


def check_settings(db: sqlite3.Connection, t: TableSchema, report: QcReport) -> None:
    """One VAT rate, a fraction in [0, 1): 20 % is written 0.20; the levy's rounding rule at
    most once and by its name (a bundle without it quotes per unit, shown in the figures)."""
    key, value = q(t.columns["key"]), q(t.columns["value"])
    rules = [
        v for (v,) in db.execute(f"SELECT {value} FROM {q(t.name)} WHERE {key} = ?", (SETTING,))
    ]
    problems: list[str] = []
    rule = geopackage_lookups.levy_rounding([{"key": SETTING, "value": v} for v in rules], problems)
    for problem in problems:
        report.add("value_invalid", SETTINGS, SETTING, problem)
    report.figures[SETTING] = rule.value if rules else f"{rule.value} (not stated: older bundle)"
    rates = [v for (v,) in db.execute(f"SELECT {value} FROM {q(t.name)} WHERE {key} = 'vat_rate'")]
    if len(rates) != 1:
        report.add("value_invalid", SETTINGS, "vat_rate", f"{len(rates)} vat_rate rows, not 1")
        return
    rate = plain_decimal(rates[0])
    if rate is None or not 0 <= rate < 1:
        report.add(
            "value_invalid",
            SETTINGS,
            "vat_rate",
            f"vat_rate {rates[0]!r} is not a fraction in [0, 1): write 0.20 for 20 %",
        )
