"""KML (and KMZ, a zipped KML): polygons in WGS 84 as Google Earth draws them, read by GDAL.

XML can declare entities that expand without bound (a kilobyte becomes gigabytes) or fetch
other files; a KML never needs a DTD, so, as defusedxml does, one is refused before GDAL sees
the file. Coordinates are counted in the raw text first (every position holds a comma), so a
file that cannot be within the vertex limits is refused before a geometry is built. A KML's
folders are GDAL layers: all are read in order, or the one ``layer`` names.
"""

from __future__ import annotations

from pathlib import Path

import pyogrio

from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import InputLimits

# A DTD or an entity declaration, in the encodings expat reads (UTF-8 and UTF-16 either way).
_DECLARATIONS = tuple(
    word.encode(codec)
    for word in ("<!DOCTYPE", "<!ENTITY")
    for codec in ("utf-8", "utf-16-le", "utf-16-be")
)
_BLOCK = 1024 * 1024
_OVERLAP = max(len(mark) for mark in _DECLARATIONS) - 1


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(code=code, message=message)])


def screen_kml(path: Path, limits: InputLimits) -> None:
    """Refuse a KML that declares a DTD or entities, or holds more positions than allowed;
    read a block at a time (each block overlapping the last by a declaration's length), so
    the screen costs a block of memory however large the file."""
    commas = 0
    tail = b""
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            window = (tail + block).upper()
            if any(mark in window for mark in _DECLARATIONS):
                message = "the KML declares a DTD or entities, which a KML never needs and "
                message += "which can expand without bound; save it again"
                raise _refuse("unreadable_file", message)
            commas += block.count(b",")
            tail = block[-_OVERLAP:]
    # A position is "x,y" or "x,y,z": at least one comma, at most two.
    positions = commas // 2
    if positions > limits.max_total_vertices:
        message = f"the KML holds over {positions:,} positions; at most "
        message += f"{limits.max_total_vertices:,} vertices are allowed in all"
        raise InvalidInput([Problem(code="too_many_vertices", message=message, field="geometry")])


def kml_layers(path: Path, layer: str | None) -> list[str]:
    """The folders to read: the one ``layer`` names, else every one, in the file's order."""
    names = [str(name) for name, _ in pyogrio.list_layers(path)]
    if layer is None:
        return names
    if layer in names:
        return [layer]
    shown = ", ".join(repr(name[:60]) for name in names[:20])
    raise _refuse("unknown_layer", f"the KML has no folder called {layer[:60]!r} (it has {shown})")
