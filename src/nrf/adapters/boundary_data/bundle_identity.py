"""A bundle's identity (bundle_info and digest) without loading its layers.

The worker's supervisor and `nrf bundle publish` need only the name, version and synthetic
flag; loading a national bundle's layers for that would cost seconds and hundreds of MB.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from nrf.adapters.boundary_data.bundle_digest import file_sha256
from nrf.adapters.boundary_data.geopackage_cells import text_or_none
from nrf.adapters.boundary_data.geopackage_schema import check_schema, q
from nrf.domain.errors import BrokenBundle
from nrf.domain.model import BundleInfo

_INFO_COLUMNS = ("name", "version", "created", "description")


def bundle_identity(path: Path, sha256: str | None = None) -> BundleInfo:
    """The bundle's ``bundle_info`` row and SHA-256 (``sha256`` when already verified)."""
    if not path.is_file():
        raise BrokenBundle(f"bundle file not found: {path}")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BrokenBundle(f"{path} cannot be opened ({exc})") from None
    try:
        schema, problems = check_schema(db)
        if problems:
            raise BrokenBundle(f"{path.name}: " + "; ".join(problems))
        table = schema["bundle_info"]
        columns = ", ".join(q(table.columns[c]) for c in _INFO_COLUMNS)
        rows = db.execute(f"SELECT {columns} FROM {q(table.name)}").fetchall()
    except sqlite3.DatabaseError as exc:
        raise BrokenBundle(f"{path} is not a GeoPackage ({exc})") from None
    finally:
        db.close()
    if len(rows) != 1:
        raise BrokenBundle(f"table 'bundle_info' must have exactly one row; it has {len(rows)}")
    name, version, created, description = (text_or_none(v) or "" for v in rows[0])
    return BundleInfo(
        name=name,
        version=version,
        created=created,
        description=description,
        sha256=sha256 or file_sha256(path),
    )
