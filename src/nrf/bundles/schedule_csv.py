"""Read the charging schedule and the CIL index CSVs as text, so no penny is lost to floats.

A file is refused, naming the line, when its meaning is in doubt: text in no known encoding,
a separator other than a comma, two columns of one name, a row with more or fewer fields than
the header. What Excel writes is cleaned and listed: a BOM, Windows-1252 text (Excel's "CSV
(Comma delimited)" on a UK Windows), CRLF line ends, header names in other case or with spaces,
blank rows, money written "£2,675.00", and day-first dates where the file shows they are
(excel_dates.py). The values themselves are
checked by the quality gate, on the bundle, so a bad value is reported once, with its line.
The file is read twice and never held: once as bytes, for its encoding, then as CSV rows,
which go to a ``RowSpool`` on disk (a million rows once cost the build 1.8 GB), while the
dates show their order; the rows are read back from the spool as the bundle is written. A
file beyond any sane delivery (``MAX_CSV_BYTES``) is refused before it is read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from nrf.bundles.csv_encoding import csv_encoding
from nrf.bundles.excel_dates import DayFirst
from nrf.bundles.missing_column import missing_detail
from nrf.bundles.numeric_text import POUND, parse_number
from nrf.bundles.qc.report import QcReport
from nrf.bundles.row_spool import RowSpool

FORMAT = "source_format"
Row = dict[str, Any]


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


class CsvRows:
    """A levy CSV's cleaned rows, read back from their spool once, in file order, as
    {role: text, "_line": line}; slash dates rewritten (each listed) if the file is day first."""

    def __init__(
        self,
        *,
        key: str,
        name: str,
        roles: tuple[str, ...],
        spool: RowSpool,
        order: DayFirst,
        dates: tuple[str, ...],
        report: QcReport,
    ) -> None:
        self._key, self._name, self._roles, self._report = key, name, roles, report
        self._spool, self._order, self._dates = spool, order, dates

    def __iter__(self) -> Iterator[Row]:
        try:
            for line, values in self._spool:
                row: Row = {"_line": line, **dict(zip(self._roles, values, strict=True))}
                self._order.rewrite(self._key, self._name, row, self._dates, self._report)
                yield row
        finally:
            self._spool.close()


# Long: each refusal of a row (blank, too few or many fields, a repeat) said in place.
def read_csv_rows(
    key: str,
    path: Path,
    columns: Mapping[str, str],
    report: QcReport,
    money: tuple[str, ...] = (),
    dates: tuple[str, ...] = (),
) -> CsvRows | None:
    """The file's rows, spooled (``CsvRows``); None (reported) when unreadable.

    ``columns`` maps each role to its header name (a manifest may rename one); ``money`` names
    the roles where "£" and thousands separators are read as a cleaning; ``dates`` the roles
    whose slash dates decide, together, whether the file is day first.
    """
    reading = csv_encoding(key, path, report)
    if reading is None:
        return None
    encoding, skip = reading
    folded = {role: c.strip().casefold() for role, c in columns.items()}
    wanted = tuple(folded.values())
    spool = RowSpool(len(columns))
    order = DayFirst()
    try:
        with path.open("rb") as raw:
            raw.seek(skip)
            rows = csv.reader(io.TextIOWrapper(raw, encoding=encoding, newline=""))
            header = next(rows, None)
            if header is None:
                report.add("source_missing", key, path.name, "the file is empty: no header")
                spool.close()
                return None
            positions = _header(key, path, header, folded, report)
            if positions is None:
                spool.close()
                return None
            for fields in rows:
                where = f"{path.name} line {rows.line_num}"
                if not any(f.strip() for f in fields):
                    report.add("cleaned", key, where, "blank row dropped")
                    continue
                if len(fields) != len(header):
                    report.add(
                        FORMAT, key, where, f"{len(fields)} fields, the header has {len(header)}"
                    )
                    continue
                values = [
                    _value(
                        key, columns[role], fields[positions[name]], role in money, where, report
                    )
                    for role, name in zip(columns, wanted, strict=True)
                ]
                # An identical repeat says nothing new (a different one is gated).
                if not spool.add(rows.line_num, values):
                    report.add("cleaned", key, where, "repeats an earlier row exactly: dropped")
                    continue
                for role, value in zip(columns, values, strict=True):
                    if role in dates:
                        order.see(value)
    except OSError as exc:
        spool.close()
        report.add("source_missing", key, str(path), f"cannot read ({exc.strerror or exc})")
        return None
    return CsvRows(
        key=key,
        name=path.name,
        roles=tuple(columns),
        spool=spool,
        order=order,
        dates=dates,
        report=report,
    )
