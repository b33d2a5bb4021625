"""The delivered file a bundle layer was read from, as the build recorded it in `bundle_sources`.

A data manager fixes the delivery, not the bundle, so a finding about a feature names the file
to open. A shapefile is recorded as all its parts under one role; the `.shp` is the one to open.
A bundle built elsewhere (no `bundle_sources`) names none, and the finding keeps the layer alone.
"""

from __future__ import annotations

import sqlite3


def delivered_file(db: sqlite3.Connection, role: str) -> str | None:
    """The path, relative to the delivery folder, of the file ``role`` was read from, or None."""
    try:
        paths = [
            str(p)
            for (p,) in db.execute(
                "SELECT path FROM bundle_sources WHERE role = ? ORDER BY path", (role,)
            )
        ]
    except sqlite3.Error:
        return None
    shapefiles = [p for p in paths if p.casefold().endswith(".shp")]
    if shapefiles:
        return shapefiles[0]
    return paths[0] if len(paths) == 1 else None


def in_file(path: str | None) -> str:
    """The detail's opening words: "in `nutrients/LPA/LPA_National.shp`: ", or nothing."""
    return f"in `{path}`: " if path else ""
