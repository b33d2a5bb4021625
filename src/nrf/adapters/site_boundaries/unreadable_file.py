"""What is wrong with a file GDAL cannot read, in the user's terms: never GDAL's own text.

GDAL's messages name the path the server copied the upload to and quote the SQL it ran; a
requester reads the answer in problem details, ``status.json`` and the "failed" email, and
needs what is wrong with the file, not where the server put it. GDAL's text goes to the log.
"""

from __future__ import annotations

import logging

from nrf.adapters.site_boundaries.bounded_read import too_large
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import InputLimits

log = logging.getLogger("nrf.boundary")

_KINDS = {".gpkg": "GeoPackage", ".shp": "shapefile"}
# (GDAL's wording, what it means for the file) in the order they are tried.
_CAUSES = (
    ("not recognized as being in a supported file format", "it is not a {kind}"),
    ("file is not a database", "it is not a {kind} (not an SQLite database)"),
    ("database disk image is malformed", "it is damaged (cut short or corrupt)"),
    ("no such table", "it refers to a table it does not hold"),
    ("no such column", "it refers to a column it does not hold"),
)
# GDAL's words when an allocation failed: the read's memory ceiling (bounded_read) was reached.
_OUT_OF_MEMORY = ("bad_alloc", "out of memory", "cannot allocate")


def out_of_memory(text: str) -> bool:
    """GDAL's error says an allocation failed (its words vary by driver)."""
    return any(words in text.lower() for words in _OUT_OF_MEMORY)


def gdal_refusal(error: BaseException, suffix: str, limits: InputLimits) -> InvalidInput:
    """GDAL's error as an input error: ``read_too_large`` if it ran out of the memory the
    read may use (it says so in its own words), else ``unreadable_file``."""
    if out_of_memory(str(error)):
        log.info("boundary_read_too_large", extra={"detail": str(error)[:2000]})
        return too_large(limits)
    message = unreadable_message(error, suffix)
    return InvalidInput([Problem(code="unreadable_file", message=message)])


def unreadable_message(error: BaseException, suffix: str) -> str:
    """The message for ``unreadable_file``; GDAL's own text is logged, never returned."""
    kind = _KINDS.get(suffix.lower(), "boundary file")
    text = str(error)
    log.info("boundary_unreadable", extra={"detail": text[:2000], "kind": kind})
    for wording, meaning in _CAUSES:
        if wording in text:
            return f"the file cannot be read as a {kind}: {meaning.format(kind=kind)}"
    return f"the file cannot be read as a {kind}: it is damaged or not a {kind}"
