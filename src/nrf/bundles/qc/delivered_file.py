"""The delivered file a bundle layer was read from, as the build recorded it in `bundle_sources`.

A data manager fixes the delivery, not the bundle, so a finding about a feature names the file
to open. A shapefile is recorded as all its parts under one role; the `.shp` is the one to open.
A file holding several layers is named with the layer read (`layer X of file.gpkg`), and a
zipped shapefile by the zip and its member (`LPA.zip!/LPA/LPA_National.shp`), since opening the
zip alone does not say which shapefile. A bundle built elsewhere (no `bundle_sources`) names
none, and the finding keeps the layer alone; one built before `member` was recorded names the
file without it.
"""

from __future__ import annotations

import sqlite3

from attrs import frozen

# Between a zip and the path of the member inside it, as Java's jar: URLs write it.
IN_ZIP = "!/"


@frozen(kw_only=True)
class DeliveredFile:
    """Where to look: the path relative to the delivery folder, and the layer when it has many."""

    path: str
    layer: str | None = None


def _rows(db: sqlite3.Connection, role: str) -> list[tuple[str, str | None]]:
    """(path, member) of each file recorded for ``role``; no table, no rows."""
    try:
        have = {str(r[1]).casefold() for r in db.execute("PRAGMA table_info(bundle_sources)")}
        if "path" not in have:
            return []
        member = "member" if "member" in have else "NULL"  # recorded since issue 19
        sql = f"SELECT path, {member} FROM bundle_sources WHERE role = ? ORDER BY path"
        return [
            (str(path), None if inside is None else str(inside))
            for path, inside in db.execute(sql, (role,))
        ]
    except sqlite3.Error:
        return []


def delivered_file(db: sqlite3.Connection, role: str) -> DeliveredFile | None:
    """The file ``role`` was read from (and what inside it), or None when the build did not say."""
    rows = _rows(db, role)
    shapefiles = [path for path, _ in rows if path.casefold().endswith(".shp")]
    if shapefiles:
        return DeliveredFile(path=shapefiles[0])
    if len(rows) != 1:
        return None
    [(path, member)] = rows
    if member is None:
        return DeliveredFile(path=path)
    if path.casefold().endswith(".zip"):
        return DeliveredFile(path=f"{path}{IN_ZIP}{member}")
    return DeliveredFile(path=path, layer=member)


def in_file(source: DeliveredFile | None) -> str:
    """The detail's opening words: "in `nutrients/LPA/LPA_National.shp`: ", or nothing."""
    if source is None:
        return ""
    if source.layer is not None:
        return f"in layer `{source.layer}` of `{source.path}`: "
    return f"in `{source.path}`: "
