"""Encode and decode GeoPackage geometry blobs (the "GP" header followed by WKB)."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

MAGIC = b"GP"
# Envelope indicator (flag bits 1-3) -> envelope size in bytes; 5-7 are invalid.
_ENVELOPE_SIZES = (0, 32, 48, 48, 64)
_EMPTY_FLAG = 0b0001_0000
_EXTENDED_FLAG = 0b0010_0000
_LITTLE_ENDIAN_FLAG = 0b0000_0001
_XY_ENVELOPE_LE = 0b0000_0010 | _LITTLE_ENDIAN_FLAG


class BlobError(ValueError):
    """A blob that is not a standard GeoPackage geometry."""


def header_length(blob: bytes) -> int:
    """Length of the GP header (8 bytes plus the envelope) of ``blob``."""
    if len(blob) < 8 or blob[:2] != MAGIC:
        raise BlobError("not a GeoPackage geometry blob (no 'GP' magic)")
    if blob[2] != 0:
        raise BlobError(f"unsupported GeoPackage blob version {blob[2]}")
    flags = blob[3]
    if flags & _EXTENDED_FLAG:
        raise BlobError("extended GeoPackage geometry types are not supported")
    indicator = (flags >> 1) & 0b111
    if indicator >= len(_ENVELOPE_SIZES):
        raise BlobError(f"invalid envelope indicator {indicator}")
    size = 8 + _ENVELOPE_SIZES[indicator]
    if len(blob) < size:
        raise BlobError("GeoPackage blob is shorter than its header")
    return size


def is_empty(blob: bytes) -> bool:
    """True when the header marks the geometry as empty (a blob too short to have flags is
    not: ``header_length`` refuses it)."""
    return len(blob) > 3 and bool(blob[3] & _EMPTY_FLAG)


def srs_id(blob: bytes) -> int:
    """The spatial reference system id stored in the header."""
    order = "<" if blob[3] & _LITTLE_ENDIAN_FLAG else ">"
    return int(struct.unpack_from(f"{order}i", blob, 4)[0])


# A header's first four bytes (magic, version 0, flags) -> its length, for the flags of a plain
# non-empty geometry; any other start (empty, extended, invalid, short) takes the full checks.
_PLAIN_HEADERS = {
    MAGIC + bytes((0, flags)): 8 + _ENVELOPE_SIZES[(flags >> 1) & 0b111]
    for flags in range(64)
    if not flags & (_EMPTY_FLAG | _EXTENDED_FLAG) and (flags >> 1) & 0b111 < len(_ENVELOPE_SIZES)
}


def _wkb(blob: bytes | None) -> bytes | None:
    if blob is None:
        return None
    size = _PLAIN_HEADERS.get(blob[:4])
    if size is not None and len(blob) >= size:
        return blob[size:]  # the common case: one lookup, not the checks one by one
    return None if is_empty(blob) else blob[header_length(blob) :]


def decode_blobs(blobs: Sequence[bytes | None]) -> NDArray[np.object_]:
    """Shapely geometries of many blobs at once; None for NULL or empty geometries."""
    return np.asarray(shapely.from_wkb(list(map(_wkb, blobs))), dtype=object)


def encode_blob(
    wkb: bytes, srs: int, envelope: tuple[float, float, float, float] | None = None
) -> bytes:
    """A little-endian blob around ``wkb``; ``envelope`` is (minx, maxx, miny, maxy)."""
    if envelope is None:
        return MAGIC + struct.pack("<BBi", 0, _LITTLE_ENDIAN_FLAG, srs) + wkb
    return MAGIC + struct.pack("<BBi4d", 0, _XY_ENVELOPE_LE, srs, *envelope) + wkb


def encode_geometries(
    geometries: Iterable[object] | NDArray[np.object_], srs: int, *, envelope: bool = False
) -> list[bytes | None]:
    """Blobs of many shapely geometries (None stays None); envelopes are optional in a GPKG."""
    geoms = np.asarray(list(geometries) if not isinstance(geometries, np.ndarray) else geometries)
    wkbs = shapely.to_wkb(geoms, byte_order=1, flavor="iso")
    plain = MAGIC + struct.pack("<BBi", 0, _LITTLE_ENDIAN_FLAG, srs)
    empty = MAGIC + struct.pack("<BBi", 0, _LITTLE_ENDIAN_FLAG | _EMPTY_FLAG, srs)
    empties = shapely.is_empty(geoms)
    if not envelope:
        return [
            None if w is None else (empty if e else plain) + w
            for w, e in zip(wkbs, empties, strict=True)
        ]
    bounds = shapely.bounds(geoms)
    out: list[bytes | None] = []
    for w, e, (minx, miny, maxx, maxy) in zip(wkbs, empties, bounds, strict=True):
        if w is None or e:
            out.append(None if w is None else empty + w)
        else:
            out.append(encode_blob(w, srs, (minx, maxx, miny, maxy)))
    return out
