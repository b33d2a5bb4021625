"""Checks on a delivered file before its rows are read: its parts, its columns, its errors.

A shapefile is several files, and a missing .shx or .dbf must be named as such rather than
surface as "no column"; columns are matched ignoring case (each such match listed as a
cleaning), so an export that changed case needs no manifest; and what GDAL raises on a file
that is damaged is one tuple, caught in one place.
"""

from __future__ import annotations

from pathlib import Path

import pyogrio

from nrf.bundles.manifest import Source
from nrf.bundles.missing_column import missing_detail
from nrf.bundles.qc.report import QcReport

# What GDAL and SQLite raise on a file that is truncated, corrupt or not what its name says.
UNREADABLE = (
    pyogrio.errors.DataSourceError,
    pyogrio.errors.DataLayerError,
    pyogrio.errors.FeatureError,
    pyogrio.errors.FieldError,
    pyogrio.errors.GeometryError,
    OSError,
    RuntimeError,
    ValueError,
)


def part(path: Path, suffix: str) -> Path:
    """The shapefile part with ``suffix``, in whatever case it was delivered."""
    for candidate in path.parent.glob(f"{path.stem}.*"):
        if candidate.suffix.casefold() == suffix:
            return candidate
    return path.with_suffix(suffix)


def shapefile_parts_present(key: str, path: Path, source: Source, report: QcReport) -> bool:
    """A shapefile needs its .shx and .dbf beside the .shp; each missing one is named."""
    if path.suffix.casefold() != ".shp":
        return True
    missing = [s for s in (".shx", ".dbf") if not part(path, s).is_file()]
    for suffix in missing:
        shown = str(Path(source.path).with_suffix(suffix).as_posix())
        report.add("source_missing", key, shown, f"the shapefile's {suffix} file is missing")
    return not missing and _counts_agree(key, path, report)


def _counts_agree(key: str, path: Path, report: QcReport) -> bool:
    """The .shx (8 bytes a record after a 100-byte header) and the .dbf header (a record
    count at byte 4) must count the same records: else one was cut or swapped."""
    shx, dbf = part(path, ".shx"), part(path, ".dbf")
    try:
        shapes = (shx.stat().st_size - 100) // 8
        with dbf.open("rb") as handle:
            header = handle.read(8)
    except OSError:
        return True  # unreadable parts are reported when GDAL opens them
    if len(header) < 8 or shapes < 0:
        return True
    rows = int.from_bytes(header[4:8], "little")
    if rows != shapes:
        report.add(
            "source_corrupt",
            key,
            dbf.name,
            f"{dbf.name} holds {rows} records and {shx.name} {shapes} shapes: a part was "
            "cut short or comes from another export",
        )
        return False
    return True


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def matched_columns(
    key: str, source: Source, stored: dict[str, str], report: QcReport, place: str = ""
) -> list[str] | None:
    """The stored names of the wanted columns (matched ignoring case, each match in other case
    listed as cleaned; a role's alternative name read when its own is absent), or None when
    any is missing (each one reported)."""
    place = place or f"{source.path}:"
    asked: list[str] = []
    for role, column in source.columns.items():
        names = (column, *source.alternatives.get(role, ()))
        asked.append(next((n for n in names if n.casefold() in stored), column))
    missing = [
        (r, c) for r, c in zip(source.columns, asked, strict=True) if c.casefold() not in stored
    ]
    for role, column in missing:
        detail = missing_detail(key, role, column, stored.values())
        report.add("source_missing", key, f"{place}{column}", detail)
    if missing:
        return None
    wanted = [stored[c.casefold()] for c in asked]
    for want, found in zip(source.columns.values(), wanted, strict=True):
        if want != found:
            report.add("cleaned", key, f"{place}{found}", f"column '{found}' read as '{want}'")
    return wanted


def dbf_encoding_declared(path: Path) -> bool:
    """Whether a shapefile says how its text is encoded: a .cpg, or the .dbf's language byte.

    Without either, GDAL reads the bytes as Latin-1, which turns a cp1252 dash into a control
    character and UTF-8 "é" into "Ã©": the text is then right only if it is plain ASCII.
    """
    if path.suffix.casefold() != ".shp" or part(path, ".cpg").is_file():
        return True
    try:
        with part(path, ".dbf").open("rb") as handle:
            header = handle.read(30)
    except OSError:
        return True  # reported elsewhere
    return len(header) < 30 or header[29] != 0


def undeclared_text(
    key: str, path: Path, fids: list[int], columns: dict[str, list[object]], report: QcReport
) -> bool:
    """Report every non-ASCII text of a shapefile that declares no encoding; True if any."""
    if dbf_encoding_declared(path):
        return False
    found = False
    for column, values in columns.items():
        for fid, value in zip(fids, values, strict=True):
            if isinstance(value, str) and not value.isascii():
                found = True
                report.add(
                    "source_encoding",
                    key,
                    f"source fid {fid}",
                    f"{part(path, '.dbf').name} {column} {value!r}: non-ASCII text and no .cpg "
                    "to say its encoding; add one (e.g. 'UTF-8' or '1252')",
                )
    return found
