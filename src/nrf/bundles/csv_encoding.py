"""A levy CSV's encoding, judged from its bytes a chunk at a time, so no file is held whole.

UTF-8 when all of it is (a BOM dropped and listed); else Windows-1252, what Excel saves on a UK
Windows, when every byte means a character there and none is NUL (listed as a cleaning); else
refused, naming the first bad byte and its line. A file plainly not CSV (an HTML page, a
workbook) or beyond any sane delivery (``MAX_CSV_BYTES``) is refused before it is scanned.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from attrs import frozen

from nrf.bundles.qc.report import QcReport
from nrf.bundles.source_text import ENCODING, NUL, not_utf8_at, nul_at

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


def csv_encoding(key: str, path: Path, report: QcReport) -> tuple[str, int] | None:
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
