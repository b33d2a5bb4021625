"""Read the charging schedule and the CIL index CSVs as text, so no penny is lost to floats.

A file is refused, naming the line, when its meaning is in doubt: text in no known encoding,
a separator other than a comma, two columns of one name, a row with more or fewer fields than
the header. What Excel writes is cleaned and listed: a BOM, Windows-1252 text (Excel's "CSV
(Comma delimited)" on a UK Windows), CRLF line ends, header names in other case or with spaces,
blank rows, money written "£2,675.00", and day-first dates where the file shows they are
(excel_dates.py). The values themselves are
checked by the quality gate, on the bundle, so a bad value is reported once, with its line.
A file larger than any schedule (``MAX_CSV_BYTES``) is refused before it is read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nrf.bundles.excel_dates import day_first_dates
from nrf.bundles.missing_column import missing_detail
from nrf.bundles.numeric_text import POUND, parse_number
from nrf.bundles.qc.report import QcReport
from nrf.bundles.source_text import ENCODING, NUL, first_bad_byte

FORMAT = "source_format"
# A charging schedule or index is tens of rows; a million-row file cost the build 1.8 GB (the
# text, its rows, and each row's copies) before a single row was judged.
MAX_CSV_BYTES = 10 * 1024 * 1024
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
Row = dict[str, Any]


def not_text(data: bytes) -> str | None:
    """What a file that is plainly no CSV is (a download proxy's page, a spreadsheet), or None."""
    head = data[:512].lstrip().lower()
    for magic, kind in MAGIC.items():
        if head.startswith(magic):
            return kind
    return None


def _text(key: str, path: Path, report: QcReport) -> str | None:
    if path.exists() and not path.is_file():  # a folder, or a pipe that would never end
        report.add("source_corrupt", key, path.name, "not a regular file")
        return None
    try:
        size = path.stat().st_size
        if size > MAX_CSV_BYTES:
            report.add(
                "source_too_large",
                key,
                path.name,
                f"{size:,} bytes; a levy CSV is at most {MAX_CSV_BYTES:,} (about 100,000 rows; "
                "a charging schedule is a few kB): is it the right file?",
            )
            return None
        data = path.read_bytes()
    except OSError as exc:
        report.add("source_missing", key, str(path), f"cannot read ({exc.strerror or exc})")
        return None
    kind = not_text(data)
    if kind is not None:
        report.add("source_corrupt", key, path.name, f"{kind}, not CSV text")
        return None
    if data.startswith(BOM):
        data = data[len(BOM) :]
        report.add("cleaned", key, f"{path.name} line 1", "UTF-8 byte-order mark dropped")
    bad = first_bad_byte(data)
    if bad is None:
        return data.decode("utf-8")
    line = data[: bad[0]].count(b"\n") + 1
    where = f"{path.name} line {line}"
    try:
        if NUL in data:  # UTF-16 or binary: no single-byte reading makes it text
            raise UnicodeDecodeError("cp1252", data, bad[0], bad[0] + 1, "NUL")
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        report.add(ENCODING, key, where, bad[1])
        return None
    # A CSV is what Excel saves; on Windows it saves the ANSI code page, Windows-1252 in the UK.
    char = data[bad[0] : bad[0] + 1].decode("cp1252")
    report.add(
        "cleaned",
        key,
        where,
        f"read as Windows-1252, not UTF-8 (byte 0x{data[bad[0]]:02x} is {char!r}), as Excel "
        "saves a CSV on Windows",
    )
    return text


def _header(
    key: str,
    path: Path,
    header: list[str],
    wanted: Mapping[str, str],
    report: QcReport,
) -> dict[str, int] | None:
    """Column name -> position, matched ignoring case and spaces; None (reported) if unusable.

    ``wanted`` maps each role to its header name, folded (stripped, in lower case)."""
    where = f"{path.name} line 1"
    if len(header) == 1 and any(sep in header[0] for sep in ";\t|"):
        sep = next(s for s in ";\t|" if s in header[0])
        report.add(FORMAT, key, where, f"the header is separated by {sep!r}, not by commas")
        return None
    found: dict[str, int] = {}
    for position, name in enumerate(header):
        norm = name.strip().casefold()
        if norm in found:
            report.add(FORMAT, key, where, f"two columns are named '{norm}'")
            return None
        found[norm] = position
        if norm in wanted.values() and name != norm:
            report.add("cleaned", key, where, f"column {name!r} read as '{norm}'")
    missing = [(role, c) for role, c in wanted.items() if c not in found]
    for role, column in missing:
        detail = missing_detail(key, role, column, header)
        report.add("source_missing", key, f"{path.name}:{column}", detail)
    return None if missing else {c: found[c] for c in wanted.values()}


def _value(key: str, column: str, text: str, money: bool, where: str, report: QcReport) -> str:
    value = text.strip()
    if money:
        parsed = parse_number(text, money=True)
        if parsed is not None and parsed.how:
            clean = value.replace(POUND, "").replace(",", "").strip()
            report.add("cleaned", key, where, f"{column} {text!r} read as {clean} ({parsed.how})")
            return clean
    return value


def read_csv_rows(
    key: str,
    path: Path,
    columns: Mapping[str, str],
    report: QcReport,
    money: tuple[str, ...] = (),
    dates: tuple[str, ...] = (),
) -> list[Row] | None:
    """Rows as {role: stripped text, "_line": line number}; None (reported) when unreadable.

    ``columns`` maps each role to its header name (a manifest may rename one); ``money`` names
    the roles where "£" and thousands separators are read as a cleaning.
    """
    text = _text(key, path, report)
    if text is None:
        return None
    rows = csv.reader(io.StringIO(text, newline=""))
    header = next(rows, None)
    if header is None:
        report.add("source_missing", key, path.name, "the file is empty: no header")
        return None
    folded = {role: c.strip().casefold() for role, c in columns.items()}
    positions = _header(key, path, header, folded, report)
    wanted = tuple(folded.values())
    if positions is None:
        return None
    out: list[Row] = []
    seen: set[tuple[str, ...]] = set()
    for fields in rows:
        where = f"{path.name} line {rows.line_num}"
        if not any(f.strip() for f in fields):
            report.add("cleaned", key, where, "blank row dropped")
            continue
        if len(fields) != len(header):
            report.add(FORMAT, key, where, f"{len(fields)} fields, the header has {len(header)}")
            continue
        values = {
            role: _value(key, columns[role], fields[positions[name]], role in money, where, report)
            for role, name in zip(columns, wanted, strict=True)
        }
        row = tuple(values.values())
        if row in seen:  # an identical repeat says nothing new (a different one is gated)
            report.add("cleaned", key, where, "repeats an earlier row exactly: dropped")
            continue
        seen.add(row)
        out.append({"_line": rows.line_num, **values})
    day_first_dates(key, path.name, out, dates, report)
    return out
