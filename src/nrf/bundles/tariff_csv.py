"""Read the tariff CSV (Defra has no tariff source yet) as text, so no penny is lost to floats.

The file is refused, naming the line, when its meaning is in doubt: text that is not UTF-8, a
separator other than a comma, two columns of one name, a row with more or fewer fields than
the header. What is unambiguous is cleaned and listed: a BOM, CRLF line ends, header names in
other case or with spaces, blank rows, and money written "£3,127.45". The values themselves
are checked by the quality gate with the reader's own rules, so a bad value is reported once.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from nrf.adapters.boundary_data import geopackage_lookups
from nrf.bundles.geopackage_writer import Table
from nrf.bundles.numeric_text import POUND, parse_number
from nrf.bundles.qc.report import QcReport
from nrf.bundles.source_text import ENCODING, first_bad_byte

LEVY = "levy_rates"
LEVY_CSV = ("edp_id", "edp_name", "n_gbp_per_kg", "p_gbp_per_kg", *geopackage_lookups.SHARES)
MONEY = ("n_gbp_per_kg", "p_gbp_per_kg")
FORMAT = "source_format"
BOM = b"\xef\xbb\xbf"
MAGIC = {
    b"<!doctype html": "an HTML page",
    b"<html": "an HTML page",
    b"<?xml": "an XML document",
    b"pk\x03\x04": "a ZIP file (an .xlsx workbook?)",
    b"\xd0\xcf\x11\xe0": "an old Excel (.xls) workbook",
    b"%pdf": "a PDF",
    b"sqlite format 3": "a SQLite database",
}


def not_text(data: bytes) -> str | None:
    """What a file that is plainly no CSV is (a download proxy's page, a spreadsheet), or None."""
    head = data[:512].lstrip().lower()
    for magic, kind in MAGIC.items():
        if head.startswith(magic):
            return kind
    return None


def _text(path: Path, report: QcReport) -> str | None:
    if path.exists() and not path.is_file():  # a folder, or a pipe that would never end
        report.add("source_corrupt", LEVY, path.name, "not a regular file")
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        report.add("source_missing", LEVY, str(path), f"cannot read ({exc.strerror or exc})")
        return None
    kind = not_text(data)
    if kind is not None:
        report.add("source_corrupt", LEVY, path.name, f"{kind}, not CSV text")
        return None
    if data.startswith(BOM):
        data = data[len(BOM) :]
        report.add("cleaned", LEVY, f"{path.name} line 1", "UTF-8 byte-order mark dropped")
    bad = first_bad_byte(data)
    if bad is not None:
        line = data[: bad[0]].count(b"\n") + 1
        report.add(ENCODING, LEVY, f"{path.name} line {line}", bad[1])
        return None
    return data.decode("utf-8")


def _header(path: Path, header: list[str], report: QcReport) -> dict[str, int] | None:
    """Column name -> position, matched ignoring case and spaces; None (reported) if unusable."""
    where = f"{path.name} line 1"
    if len(header) == 1 and any(sep in header[0] for sep in ";\t|"):
        sep = next(s for s in ";\t|" if s in header[0])
        report.add(FORMAT, LEVY, where, f"the header is separated by {sep!r}, not by commas")
        return None
    found: dict[str, int] = {}
    for position, name in enumerate(header):
        norm = name.strip().casefold()
        if norm in found:
            report.add(FORMAT, LEVY, where, f"two columns are named '{norm}'")
            return None
        found[norm] = position
        if norm in LEVY_CSV and name != norm:
            report.add("cleaned", LEVY, where, f"column {name!r} read as '{norm}'")
    missing = [c for c in LEVY_CSV if c not in found]
    for column in missing:
        report.add("source_missing", LEVY, f"{path.name}:{column}", f"no column '{column}'")
    return None if missing else {c: found[c] for c in LEVY_CSV}


def _value(column: str, text: str, where: str, report: QcReport) -> str | None:
    value = text.strip() or None
    if value is not None and column in MONEY:
        parsed = parse_number(text, money=True)
        if parsed is not None and parsed.how:
            clean = value.replace(POUND, "").replace(",", "").strip()
            report.add("cleaned", LEVY, where, f"{column} {text!r} read as {clean} ({parsed.how})")
            return clean
    return value


def read_levy_csv(path: Path, report: QcReport) -> Table:
    """The tariff CSV as text columns (so the reader's Decimals keep every penny)."""
    out: list[tuple[object, ...]] = []  # the rows, filled below
    table = Table(LEVY, [(c, "TEXT") for c in LEVY_CSV], out)
    text = _text(path, report)
    if text is None:
        return table
    rows = csv.reader(io.StringIO(text, newline=""))
    header = next(rows, None)
    if header is None:
        report.add("source_missing", LEVY, f"{path.name}:edp_id", "the file is empty")
        return table
    columns = _header(path, header, report)
    if columns is None:
        return table
    for fields in rows:
        where = f"{path.name} line {rows.line_num}"
        if not any(f.strip() for f in fields):
            report.add("cleaned", LEVY, where, "blank row dropped")
        elif len(fields) != len(header):
            report.add(FORMAT, LEVY, where, f"{len(fields)} fields, the header has {len(header)}")
        else:
            row = tuple(_value(c, fields[i], where, report) for c, i in columns.items())
            if row in out:  # an identical repeat says nothing new (a different one is refused)
                report.add("cleaned", LEVY, where, f"repeats the row of edp_id {row[0]}: dropped")
            else:
                out.append(row)
    return table
