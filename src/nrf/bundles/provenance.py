"""Where a built bundle came from: every source file's SHA-256, the build, and the QC outcome.

``bundle_info`` keeps the four columns every reader knows and gains more (ignored by older
readers); the per-file digests go in a side table ``bundle_sources``, one row per file and
role, so a figure can be traced to the exact delivery that produced it. Its ``member`` says
what inside the file was read (a GeoPackage's layer, a SQLite table, the `.shp` inside a zip),
so a gate finding can name the place a data manager opens, not only the file;
``bundle_columns`` (see ``delivered_columns``) gives each bundle column's delivered name, so it
can name the column too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from attrs import frozen

from nrf.adapters.boundary_data.bundle_digest import sha256_of
from nrf.bundles import delivered_columns
from nrf.bundles.geopackage_writer import GeoPackageWriter
from nrf.bundles.manifest import Manifest, Source
from nrf.bundles.zip_member import shapefile_member

INFO_COLUMNS = [
    ("name", "TEXT"),
    ("version", "TEXT"),
    ("created", "TEXT"),
    ("description", "TEXT"),
    ("nrf_version", "TEXT"),
    ("qc_outcome", "TEXT"),
    ("qc_summary", "TEXT"),
]
SOURCE_COLUMNS = [
    ("role", "TEXT"),
    ("path", "TEXT"),
    ("bytes", "INTEGER"),
    ("sha256", "TEXT"),
    ("member", "TEXT"),
]
QC_PENDING = "pending"  # written before the gate runs; the build sets the outcome after it


@frozen(kw_only=True)
class BundleInfoRow:
    """The one ``bundle_info`` row: the QC outcome stays pending until the gate has run."""

    name: str
    version: str
    created: str
    description: str
    nrf_version: str
    qc_outcome: str = QC_PENDING
    qc_summary: str = ""

    def row(self) -> tuple[str, ...]:
        """The values in INFO_COLUMNS order."""
        return tuple(str(getattr(self, column)) for column, _ in INFO_COLUMNS)


@frozen(kw_only=True)
class SourceFile:
    """One delivered file; ``member`` is what was read inside it for ``role``, if anything."""

    role: str
    path: str
    bytes: int
    sha256: str
    member: str | None = None


def _companions(path: Path) -> list[Path]:
    """A shapefile is several files (.shp, .shx, .dbf, .prj, .cpg, ...): hash them all."""
    if path.suffix.lower() != ".shp":
        return [path]
    return sorted(p for p in path.parent.glob(f"{path.stem}.*") if p.is_file())


def _member(path: Path, source: Source) -> str | None:
    """The zipped shapefile's member, or the layer or table read from a file of several."""
    if path.suffix.casefold() == ".zip":
        return shapefile_member(path, source.layer)
    return source.layer


def source_files(
    root: Path, manifest: Manifest, extra: Iterable[tuple[str, Path]]
) -> list[SourceFile]:
    """Every delivered file the build read (optional ones only when present), plus ``extra``.

    A file read for two roles (the lookups: permits and rates) is listed under each, with what
    was read inside it for that role (its table), so a finding on either names its table."""
    found: dict[tuple[Path, str], str | None] = {}
    extra = list(extra)
    named = {role for role, _ in extra}
    for role, source in manifest.sources.items():
        if role in named:  # read from the file given, not from the manifest's path
            continue
        for path in _companions(root / source.path):
            if path.is_file():
                found.setdefault((path, role), _member(path, source))
    listed = {path for path, _ in found}
    for role, path in extra:
        if path not in listed:
            found[(path, role)] = None
            listed.add(path)
    out = []
    digests: dict[Path, str] = {}
    for (path, role), member in found.items():
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        if path not in digests:
            digests[path] = sha256_of(path)
        out.append(
            SourceFile(
                role=role,
                path=shown,
                bytes=path.stat().st_size,
                sha256=digests[path],
                member=member,
            )
        )
    return out


def write_provenance(
    writer: GeoPackageWriter,
    info: BundleInfoRow,
    sources: list[SourceFile],
    columns: list[tuple[str, str, str]],
) -> None:
    """``bundle_info``, ``bundle_sources`` and ``bundle_columns`` (role, column, delivered)."""
    writer.create_table("bundle_info", INFO_COLUMNS, [info.row()])
    rows = [(s.role, s.path, s.bytes, s.sha256, s.member) for s in sources]
    writer.create_table("bundle_sources", SOURCE_COLUMNS, rows)
    writer.create_table(delivered_columns.TABLE, delivered_columns.COLUMNS, columns)
