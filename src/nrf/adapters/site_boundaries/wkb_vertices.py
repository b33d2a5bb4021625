"""Count a GeoPackage geometry's vertices from its bytes, without building the geometry.

Building a geometry costs tens of bytes a vertex, so a limit checked after building does not
protect memory; this walks only the WKB's counts (parts, rings, points) and skips coordinates,
stopping as soon as the count passes ``cap``. A blob it cannot walk counts as None and is left
to GDAL, which reports it in its own words: the walk only guards memory.
"""

from __future__ import annotations

from typing import Literal

_ENVELOPE_BYTES = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}
_POINT, _LINE, _RINGS = 1, 2, 3
# WKB base types: 1 point, 2 line, 8 circular string -> points; 3 polygon, 17 triangle -> rings.
_SHAPES = {1: _POINT, 2: _LINE, 8: _LINE, 3: _RINGS, 17: _RINGS}
_COLLECTIONS = {4, 5, 6, 7, 9, 10, 11, 12, 15, 16}  # multi*, collections, curves, surfaces
Order = Literal["big", "little"]


def gpkg_vertices(blob: bytes, cap: int) -> int | None:
    """Vertices in a GeoPackage geometry blob (header, then WKB), or None if it is not one."""
    if len(blob) < 8 or blob[:2] != b"GP":
        return None
    flags = blob[3]
    envelope = _ENVELOPE_BYTES.get((flags >> 1) & 0b111)
    if envelope is None or flags & 0b100000:  # an extended (non-standard) geometry type
        return None
    return wkb_vertices(blob, 8 + envelope, cap)


def wkb_vertices(data: bytes, start: int, cap: int) -> int | None:
    """Vertices of the WKB geometry at ``start`` (ISO or EWKB flags); stops once over ``cap``."""
    count, at, pending = 0, start, 1  # pending: geometries still to read
    while pending:
        pending -= 1
        header = _header(data, at)
        if header is None:
            return None
        kind, width, order, at = header
        if kind in _COLLECTIONS:
            parts = _uint(data, at, order)
            if parts is None:
                return None
            pending, at = pending + parts, at + 4
            continue
        shape = _SHAPES.get(kind)
        if shape is None:
            return None
        rings: int | None = 1
        if shape == _RINGS:
            rings, at = _uint(data, at, order), at + 4
        for _ in range(rings or 0):
            points = 1
            if shape != _POINT:
                points, at = _uint(data, at, order) or 0, at + 4
            count, at = count + points, at + points * width
            if count > cap:
                return count
        if at > len(data):
            return None
    return count


def _header(data: bytes, at: int) -> tuple[int, int, Order, int] | None:
    """(base type, bytes a vertex, byte order, where the body starts) of the WKB at ``at``."""
    if at + 5 > len(data) or data[at] not in (0, 1):
        return None
    order: Order = "little" if data[at] else "big"
    raw = int.from_bytes(data[at + 1 : at + 5], order)
    iso, kind = divmod(raw & 0x0FFFFFFF, 1000)
    if iso > 3:
        return None
    # ISO: +1000 Z, +2000 M, +3000 ZM; EWKB: high bits for Z and M, and one for an SRID.
    dims = 2 + (iso in (1, 3)) + (iso in (2, 3)) + bool(raw & 0x80000000) + bool(raw & 0x40000000)
    body = at + 5 + (4 if raw & 0x20000000 else 0)
    return kind, 8 * dims, order, body


def _uint(data: bytes, at: int, order: Order) -> int | None:
    return int.from_bytes(data[at : at + 4], order) if at + 4 <= len(data) else None
