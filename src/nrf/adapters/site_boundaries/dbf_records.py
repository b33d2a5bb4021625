"""Which rows of a .dbf are deleted: a record flagged ``*`` is not there, as in every GIS.

Editing a shapefile in a GIS can leave a record flagged deleted (its first byte ``*``, 0x2A)
instead of removing it; GDAL, QGIS and ArcGIS then skip both its row and its shape, and so
does nrf: such a record is not a site, the file's site count leaves it out and positions
count only the sites left. The flags are read from the records themselves (the header's
length and record size at bytes 8 and 10), a block at a time, so a large .dbf costs no memory.
"""

from __future__ import annotations

from pathlib import Path

from nrf.domain.errors import InvalidInput, Problem

_DELETED = 0x2A
_BLOCK_RECORDS = 8192


def deleted_records(dbf: Path, rows: int) -> frozenset[int]:
    """The 0-based positions of the ``rows`` records flagged deleted; a .dbf too short to hold
    them is refused (its rows would be read as garbage or lost)."""
    with dbf.open("rb") as handle:
        header = handle.read(12)
        start = int.from_bytes(header[8:10], "little")
        size = int.from_bytes(header[10:12], "little")
        if len(header) < 12 or size < 1 or start < 32:
            raise _cut_short(dbf, rows)
        handle.seek(start)
        deleted: set[int] = set()
        for first in range(0, rows, _BLOCK_RECORDS):
            count = min(_BLOCK_RECORDS, rows - first)
            block = handle.read(count * size)
            if len(block) < count * size:
                raise _cut_short(dbf, rows)
            flags = block[::size]
            at = flags.find(_DELETED)
            while at != -1:
                deleted.add(first + at)
                at = flags.find(_DELETED, at + 1)
    return frozenset(deleted)


def _cut_short(dbf: Path, rows: int) -> InvalidInput:
    message = f"the shapefile's .dbf is too short for the {rows:,} records its header counts: "
    message += "it was cut short; export it again"
    return InvalidInput([Problem(code="source_corrupt", message=message)])
