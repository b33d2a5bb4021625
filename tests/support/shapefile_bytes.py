"""Shapefiles as GIS software leaves them after edits, made by changing a saved file's bytes.

The layouts (ESRI's shapefile white paper and dBASE's): the .shx is a 100-byte header whose
bytes 24-27 give the file's length in 16-bit words, then 8 bytes a record (offset, content
length, both in words, big-endian); the .dbf's header gives its record count at byte 4, its
header length at byte 8 and its record size at byte 10 (little-endian), and each record's first
byte is a space, or ``*`` when the record was deleted.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path


def dbf_layout(shp: Path) -> tuple[int, int]:
    """The .dbf's header length and record size."""
    data = shp.with_suffix(".dbf").read_bytes()
    return int.from_bytes(data[8:10], "little"), int.from_bytes(data[10:12], "little")


def delete_record(shp: Path, position: int) -> Path:
    """Flag the .dbf record at 0-based ``position`` deleted, as a GIS leaves it."""
    dbf = shp.with_suffix(".dbf")
    data = bytearray(dbf.read_bytes())
    start, size = dbf_layout(shp)
    assert data[start + position * size] == 0x20  # a live record before
    data[start + position * size] = 0x2A
    dbf.write_bytes(bytes(data))
    return shp


def index_first_only(shp: Path) -> Path:
    """Leave the .shp whole but make the .shx index, and the .dbf hold, only record 1."""
    shx = shp.with_suffix(".shx")
    index = bytearray(shx.read_bytes()[:108])
    index[24:28] = (108 // 2).to_bytes(4, "big")
    shx.write_bytes(bytes(index))
    dbf = shp.with_suffix(".dbf")
    start, size = dbf_layout(shp)
    table = bytearray(dbf.read_bytes()[: start + size])
    table[4:8] = (1).to_bytes(4, "little")
    dbf.write_bytes(bytes(table) + b"\x1a")
    return shp


def repeat_first_offset(shp: Path) -> Path:
    """Point the .shx's second entry at the first record's bytes (both offset and length)."""
    shx = shp.with_suffix(".shx")
    index = bytearray(shx.read_bytes())
    index[108:116] = index[100:108]
    shx.write_bytes(bytes(index))
    return shp


def zipped(shp: Path) -> bytes:
    """The shapefile's parts zipped together, as a planner uploads them."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for part in sorted(shp.parent.glob(shp.stem + ".*")):
            archive.write(part, part.name)
    return buffer.getvalue()
