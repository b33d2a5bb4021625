"""What a shapefile really holds, read from its headers before GDAL builds a single geometry.

GDAL reads as many records as the .dbf header counts, so a .dbf whose count was cut to 1
while the .shx indexes 3 shapes would quietly drop 2 sites; and a zipped 343 kB shapefile can
expand to one 11-million-vertex polygon that costs most of a gigabyte once built. The .shx
(100-byte header, then 8 bytes a record: offset and length in 16-bit words) counts the
records, the .dbf header (a little-endian count at byte 4) counts the rows, and each .shp
record header gives its point count: all three are checked against each other and the limits.
The .shx's records must tile the .shp exactly (no byte indexed twice, none left out), else a
.shp holding 3 polygons under a .shx of 1 reads as 1 site, or two index entries on one polygon
price it twice. A record the .dbf flags deleted is not a site (``dbf_records``): the count
returned leaves it out, as GDAL's read does.
"""

from __future__ import annotations

from pathlib import Path

from nrf.adapters.site_boundaries.dbf_records import deleted_records
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import InputLimits

_HEADER = 100
_MAGIC = (9994).to_bytes(4, "big")  # the file code both the .shp and the .shx start with
# Shape types whose content holds (box, parts, points): PolyLine, Polygon, MultiPatch and their
# Z and M forms; the point count is 40 bytes into the content. MultiPoint's is 36 bytes in.
_WITH_PARTS = frozenset({3, 5, 13, 15, 23, 25, 31})
_MULTIPOINT = frozenset({8, 18, 28})
_POINT = frozenset({1, 11, 21})


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(code=code, message=message)])


def check_shapefile_records(shp: Path, shx: Path, dbf: Path, limits: InputLimits) -> int:
    """The number of sites (records not flagged deleted), after refusing counts that disagree
    or exceed ``limits`` and a .shx that does not index every polygon of the .shp once."""
    index = shx.read_bytes()
    with shp.open("rb") as handle:
        magic = handle.read(4)
    if magic != _MAGIC or index[:4] != _MAGIC:
        raise _refuse(
            "unreadable_file", "the file cannot be read as a shapefile: it is not a shapefile"
        )
    if len(index) < _HEADER or (len(index) - _HEADER) % 8:
        message = f"the shapefile's .shx is {len(index):,} bytes, not a 100-byte header and "
        raise _refuse("unreadable_file", message + "8 bytes a record: it was cut short")
    shapes = (len(index) - _HEADER) // 8
    with dbf.open("rb") as handle:
        header = handle.read(8)
    if len(header) < 8:
        raise _refuse("unreadable_file", "the shapefile's .dbf is shorter than its own header")
    rows = int.from_bytes(header[4:8], "little")
    if rows != shapes:
        message = f"the shapefile's .dbf header gives a record count of {rows:,} but its .shx "
        message += f"a shape count of {shapes:,}: a part was cut short or comes from another "
        message += "export, so sites would be lost; export it again"
        raise _refuse("source_corrupt", message)
    if shapes > limits.max_features:
        message = f"the file has {shapes:,} features; at most {limits.max_features:,} are allowed"
        raise _refuse("too_many_features", message)
    _check_points(shp, index, shapes, limits)
    return shapes - len(deleted_records(dbf, rows))


def _check_points(shp: Path, index: bytes, shapes: int, limits: InputLimits) -> None:
    size = shp.stat().st_size
    total = 0
    spans: list[tuple[int, int, int]] = []
    with shp.open("rb") as handle:
        for record in range(shapes):
            at = _HEADER + 8 * record
            offset = 2 * int.from_bytes(index[at : at + 4], "big")
            length = 2 * int.from_bytes(index[at + 4 : at + 8], "big")
            if offset < _HEADER or offset + 8 + length > size:
                message = f"the shapefile's .shx places record {record + 1} beyond the end of "
                raise _refuse("unreadable_file", message + "its .shp: a part was cut short")
            handle.seek(offset)
            head = handle.read(8)
            if 2 * int.from_bytes(head[4:8], "big") != length:
                message = f"the shapefile's .shx gives record {record + 1} a length its .shp "
                raise _refuse("source_corrupt", message + "does not: " + _EXPORT_AGAIN)
            spans.append((offset, offset + 8 + length, record + 1))
            points = _points(handle.read(min(length, 44)))
            feature = record + 1
            if points > limits.max_vertices_per_feature:
                message = f"feature {feature}: geometry has {points:,} vertices; at most "
                message += f"{limits.max_vertices_per_feature:,} are allowed"
                problem = Problem(
                    code="too_many_vertices", message=message, feature=feature, field="geometry"
                )
                raise InvalidInput([problem])
            total += points
    if total > limits.max_total_vertices:
        message = f"the file has {total:,} vertices in all; at most "
        message += f"{limits.max_total_vertices:,} are allowed"
        raise InvalidInput([Problem(code="too_many_vertices", message=message, field="geometry")])
    _check_tiling(spans, size)


_EXPORT_AGAIN = "the parts do not belong together or were damaged; export it again"


def _check_tiling(spans: list[tuple[int, int, int]], size: int) -> None:
    """The records, in file order, start at the header's end, follow each other without a gap
    or an overlap and end at the end of the .shp."""
    end, previous = _HEADER, 0
    for start, stop, record in sorted(spans):
        if start < end:
            message = f"the shapefile's .shx points records {previous} and {record} at overlapping "
            message += "bytes of its .shp, so one polygon would be quoted as two sites: "
            raise _refuse("source_corrupt", message + _EXPORT_AGAIN)
        if start > end:
            break
        end, previous = stop, record
    if end != size:
        message = f"the shapefile's .shp holds {size - end:,} bytes from byte {end:,} that its "
        message += ".shx does not index: they may hold sites that would be lost; "
        raise _refuse("source_corrupt", message + _EXPORT_AGAIN)


def _points(content: bytes) -> int:
    """The point count a record's content declares (0 for a null or short record)."""
    if len(content) < 4:
        return 0
    kind = int.from_bytes(content[:4], "little")
    if kind in _POINT:
        return 1
    at = 40 if kind in _WITH_PARTS else 36 if kind in _MULTIPOINT else None
    if at is None or len(content) < at + 4:
        return 0  # GDAL reports a record it cannot read; the count only guards memory
    return int.from_bytes(content[at : at + 4], "little")


def undeclared_encoding(dbf: Path) -> str | None:
    """How to read the text of a .dbf that does not say (no .cpg, no language byte), else None.

    GDAL then reads it as Latin-1, which turns a Windows-1252 apostrophe (0x92, in "Hall’s")
    into a control character. The records are text: if they are UTF-8 they are read as UTF-8,
    else as Windows-1252 (what Windows tools write; equal to Latin-1 but for 0x80-0x9F).
    """
    if any(p.suffix.lower() == ".cpg" for p in dbf.parent.glob(dbf.stem + ".*")):
        return None
    data = dbf.read_bytes()
    if len(data) < 32 or data[29] != 0:
        return None
    records = data[int.from_bytes(data[8:10], "little") :]
    if records.isascii():
        return None
    try:
        records.decode("utf-8")
    except UnicodeDecodeError:
        return "CP1252"
    return "UTF-8"
