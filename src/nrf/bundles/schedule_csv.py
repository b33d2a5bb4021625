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

import codecs
import csv
import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from nrf.bundles.excel_dates import DayFirst
from nrf.bundles.numeric_text import POUND, parse_number
from nrf.bundles.qc.report import QcReport
from nrf.bundles.row_spool import RowSpool
from nrf.bundles.source_text import ENCODING, NUL, not_utf8_at, nul_at

FORMAT = "source_format"
# A charging schedule or index is tens of rows; the rows are streamed, so the bound only says
# "not this file": 2 GiB is some 20 million rows.
MAX_CSV_BYTES = 2 * 1024 * 1024 * 1024
_CHUNK = 1024 * 1024
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


@frozen(kw_only=True)
class _Bad:
    """The first byte that is not UTF-8 text: where, on which line, which byte, and why."""

    offset: int
    line: int
    byte: bytes
    why: str


class _Scan:
    """The bytes of a file, fed a chunk at a time: its first NUL, its first byte that is not
    UTF-8, and whether all of it reads as Windows-1252."""

    def __init__(self) -> None:
        self.offset = 0
        self.lines = 1
        self.nul: _Bad | None = None
        self.not_utf8: _Bad | None = None
        self.cp1252 = True
        self._utf8 = codecs.getincrementaldecoder("utf-8")()

    def feed(self, chunk: bytes, *, final: bool = False) -> None:
        if self.nul is None and (at := chunk.find(NUL)) >= 0:
            self.nul = self._bad(chunk, at, NUL, nul_at(self.offset + at))
        if self.not_utf8 is None:
            held = self._utf8.getstate()[0]  # the start of a character cut by the last chunk
            try:
                self._utf8.decode(chunk, final=final)
            except UnicodeDecodeError as exc:
                at = exc.start - len(held)
                byte = (held + chunk)[exc.start : exc.start + 1]
                self.not_utf8 = self._bad(chunk, at, byte, not_utf8_at(self.offset + at, byte))
        if self.cp1252:
            try:
                chunk.decode("cp1252")
            except UnicodeDecodeError:
                self.cp1252 = False
        self.offset += len(chunk)
        self.lines += chunk.count(b"\n")

    def _bad(self, chunk: bytes, at: int, byte: bytes, why: str) -> _Bad:
        line = self.lines + chunk[: max(at, 0)].count(b"\n")
        return _Bad(offset=self.offset + at, line=line, byte=byte, why=why)


def _encoding(key: str, path: Path, report: QcReport) -> tuple[str, int] | None:
    """(encoding, bytes to skip: a BOM) to read the file's text in; None (reported) if none.

    UTF-8 if it all is; else Windows-1252 when every byte means a character there and none is
    NUL (listed as a cleaning); else refused, naming the first bad byte and its line.
    """
    if path.exists() and not path.is_file():  # a folder, or a pipe that would never end
        report.add("source_corrupt", key, path.name, "not a regular file")
        return None
    scan = _Scan()
    try:
        size = path.stat().st_size
        if size > MAX_CSV_BYTES:
            report.add(
                "source_too_large",
                key,
                path.name,
                f"{size:,} bytes; a levy CSV is at most {MAX_CSV_BYTES:,} (2 GiB, some 20 "
                "million rows; a charging schedule is a few kB): is it the right file?",
            )
            return None
        with path.open("rb") as handle:
            head = handle.read(_CHUNK)
            kind = not_text(head)
            if kind is not None:
                report.add("source_corrupt", key, path.name, f"{kind}, not CSV text")
                return None
            skip = len(BOM) if head.startswith(BOM) else 0
            if skip:
                report.add("cleaned", key, f"{path.name} line 1", "UTF-8 byte-order mark dropped")
            chunk = head[skip:]
            while chunk:
                scan.feed(chunk)
                chunk = handle.read(_CHUNK)
            scan.feed(b"", final=True)
    except OSError as exc:
        report.add("source_missing", key, str(path), f"cannot read ({exc.strerror or exc})")
        return None
    bad = scan.nul or scan.not_utf8
    if bad is None:
        return "utf-8", skip
    where = f"{path.name} line {bad.line}"
    # UTF-16 or binary (a NUL): no single-byte reading makes it text.
    if scan.nul is not None or not scan.cp1252:
        report.add(ENCODING, key, where, bad.why)
        return None
    # A CSV is what Excel saves; on Windows it saves the ANSI code page, Windows-1252 in the UK.
    report.add(
        "cleaned",
        key,
        where,
        f"read as Windows-1252, not UTF-8 (byte 0x{bad.byte.hex()} is "
        f"{bad.byte.decode('cp1252')!r}), as Excel saves a CSV on Windows",
    )
    return "cp1252", skip


def _header(
    key: str, path: Path, header: list[str], wanted: tuple[str, ...], report: QcReport
) -> dict[str, int] | None:
    """Column name -> position, matched ignoring case and spaces; None (reported) if unusable."""
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
        if norm in wanted and name != norm:
            report.add("cleaned", key, where, f"column {name!r} read as '{norm}'")
    missing = [c for c in wanted if c not in found]
    for column in missing:
        report.add("source_missing", key, f"{path.name}:{column}", f"no column '{column}'")
    return None if missing else {c: found[c] for c in wanted}


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
    reading = _encoding(key, path, report)
    if reading is None:
        return None
    encoding, skip = reading
    wanted = tuple(c.strip().casefold() for c in columns.values())
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
            positions = _header(key, path, header, wanted, report)
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
