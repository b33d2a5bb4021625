"""The shapefile a zipped layer was read from: its member path inside the zip, when only one fits.

GDAL reads a zipped shapefile without saying which member it opened, and a data manager who
opens the zip needs the folder and name inside it. The member is the zip's one `.shp` (or the one
whose name is the layer asked for); macOS's `__MACOSX/` copies are not shapefiles. With several
that fit, or a zip that cannot be read, none is named rather than a guess.
"""

from __future__ import annotations

import zipfile
from pathlib import Path, PurePosixPath

_MAC_FORKS = "__MACOSX/"


def shapefile_member(archive: Path, layer: str | None) -> str | None:
    """The `.shp` member's path inside ``archive`` (e.g. ``LPA/LPA_National.shp``), or None."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            names = zipped.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return None
    shapefiles = [
        name
        for name in names
        if name.casefold().endswith(".shp") and not name.startswith(_MAC_FORKS)
    ]
    if layer is not None:
        wanted = layer.casefold()
        shapefiles = [n for n in shapefiles if PurePosixPath(n).stem.casefold() == wanted]
    return shapefiles[0] if len(shapefiles) == 1 else None
