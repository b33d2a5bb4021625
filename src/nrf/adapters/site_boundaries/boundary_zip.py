"""Zipped boundaries: refuse unsafe paths and zip bombs, extract only the one boundary file.

The codes are Defra's where Defra has one (``invalid_zip``, ``zip_too_many_files``,
``zip_entry_too_large``, ``zip_total_too_large``, ``zip_nested_zip``, ``unsafe_filename``),
with nrf's own limits: a zip may hold anything within them, and a name may use any letters
(Defra allows only letters, digits, spaces and ``._-()``); only control characters, which
could forge log lines, and names no file system holds are refused.
"""

from __future__ import annotations

import lzma
import re
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from nrf.adapters.site_boundaries.read_folders import read_folder
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import InputLimits

BOUNDARY_SUFFIXES = (".shp", ".geojson", ".json", ".gpkg", ".kml")
_NESTED = (".zip", ".kmz")
_LAYERED = (".gpkg", ".kml")  # formats with layers of their own
MAX_NAME_CHARS = 255  # the longest file name common file systems hold
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")  # reorder text
_REQUIRED_SIDECARS = (".shx", ".dbf")
_OPTIONAL_SIDECARS = (".prj", ".cpg")
_CHUNK = 1024 * 1024
_SYMLINK = 0o120000
# Found by fuzzing: bz2 raises OSError, lzma LZMAError and a local header whose name is not
# UTF-8 UnicodeDecodeError (a ValueError), besides what zipfile itself raises.
_READ_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    NotImplementedError,
    RuntimeError,
    ValueError,
    OSError,
)


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(code=code, message=message)])


@contextmanager
def extracted_boundary(
    source: str | Path | BinaryIO, limits: InputLimits, layer: str | None = None
) -> Iterator[Path]:
    """The zip's one boundary file (with its shapefile sidecars) in a temp dir, removed after.

    ``layer`` picks one of several boundary files by its name without suffix (``sites`` for
    ``export/sites.shp``); a zip of one GeoPackage or KML keeps it for the file's own layers.
    """
    try:
        check_directory_size(source, limits)
        archive = zipfile.ZipFile(source)
    except _READ_ERRORS:
        raise _refuse("invalid_zip", "the file is not a readable zip archive") from None
    with archive, read_folder() as temp:
        members = _members_to_extract(archive.infolist(), limits, layer)
        # What is extracted is held to the size of a file sent unzipped: a 194 kB KMZ of a
        # 190 MiB KML is no cheaper to read than the KML itself.
        budget = min(limits.max_decompressed_bytes, limits.max_file_bytes)
        _check_extracted_size(members, limits)
        paths = []
        for member in members:
            # Extracted under a fixed name: nothing from the archive decides where bytes go.
            target = temp / ("boundary" + PurePosixPath(member.filename).suffix.lower())
            budget = _copy(archive, member, target, budget)
            paths.append(target)
        yield paths[0]


# What an honest entry's central directory record takes: 46 bytes, a name of at most 255
# characters (up to 4 bytes each) and a few extra fields (times, owner, zip64 sizes).
DIRECTORY_BYTES_PER_ENTRY = 2048


def check_directory_size(source: str | Path | BinaryIO, limits: InputLimits) -> None:
    """Refuse a central directory with room for far more entries than are allowed, before
    zipfile lists it: it builds an object for every entry first, and 1,000,000 empty entries
    (47 MB sent, the directory alone) cost 467 MB and 11 s before the count could refuse
    them. The size is the one zipfile itself reads, from the end record (zip64's if any)."""
    with _opened(source) as handle:
        end = _END_RECORD(handle)
    if end is None:
        return  # not a zip: zipfile refuses it in its own words
    size = int(end[_END_DIRECTORY_SIZE])
    allowed = limits.max_zip_entries * DIRECTORY_BYTES_PER_ENTRY
    if size > allowed:
        message = f"the zip's list of entries is {size:,} bytes, room for far more than the "
        message += f"{limits.max_zip_entries:,} entries allowed"
        raise _refuse("zip_too_many_files", message)


# zipfile's own reader of the end record, so the size checked is the one it will read.
_END_RECORD = zipfile._EndRecData  # type: ignore[attr-defined]
_END_DIRECTORY_SIZE = 5


@contextmanager
def _opened(source: str | Path | BinaryIO) -> Iterator[BinaryIO]:
    if isinstance(source, str | Path):
        with open(source, "rb") as handle:
            yield handle
    else:
        yield source


# Long: each refusal of a hostile zip member (size, name, count, type) said in place.
def _members_to_extract(
    infos: list[zipfile.ZipInfo], limits: InputLimits, layer: str | None
) -> list[zipfile.ZipInfo]:
    if len(infos) > limits.max_zip_entries:
        message = f"the zip has {len(infos):,} entries; at most {limits.max_zip_entries:,}"
        raise _refuse("zip_too_many_files", message + " are allowed")
    badly_named = [info for info in infos if not safe_filename(info.filename)]
    if badly_named:
        message = f"the zip has {len(badly_named)} entr{'y' if len(badly_named) == 1 else 'ies'} "
        message += "whose names hold control characters or are too long; rename them"
        raise _refuse("unsafe_filename", message)
    unsafe = [info.filename for info in infos if _unsafe(info)]
    if unsafe:
        names = ", ".join(_shown(name) for name in unsafe[:5])
        message = f"the zip has entries with unsafe paths or symlinks ({names}); nothing was read"
        raise _refuse("zip_unsafe_path", message)
    # Found by fuzzing: zipfile itself fails with IndexError on an empty name and with
    # ValueError or OSError on a negative entry offset, which would look like a server fault.
    broken = [info for info in infos if not info.filename or info.header_offset < 0]
    if broken:
        raise _refuse("invalid_zip", "the zip has an entry without a name or a position")
    budget = limits.max_decompressed_bytes
    largest = max(infos, key=lambda info: info.file_size, default=None)
    if largest is not None and largest.file_size > budget:
        message = f"the zip entry {_shown(largest.filename)} would expand to "
        message += f"{largest.file_size:,} bytes; at most {budget:,} are allowed"
        raise _refuse("zip_entry_too_large", message)
    declared = sum(info.file_size for info in infos)
    if declared > budget:
        message = f"the zip would expand to {declared:,} bytes; at most "
        raise _refuse("zip_total_too_large", f"{message}{budget:,} are allowed")
    files = [info for info in infos if not info.is_dir() and not _junk(info.filename)]
    nested = [info.filename for info in files if _suffix(info) in _NESTED]
    if nested:
        message = f"the zip holds another zip ({_shown(nested[0])}); send the boundary "
        raise _refuse("zip_nested_zip", message + "file itself, zipped once")
    candidates = [info for info in files if _suffix(info) in BOUNDARY_SUFFIXES]
    if not candidates:
        message = "the zip holds no .shp, .geojson, .json, .gpkg or .kml file"
        raise _refuse("zip_no_boundary_file", message)
    if layer is not None:
        named = [info for info in candidates if _name(info) == layer.casefold()]
        layered = [info for info in candidates if _suffix(info) in _LAYERED]
        if named or len(candidates) > 1 or not layered:
            candidates = named or _unknown_layer(candidates, layer)
    if len(candidates) > 1:
        names = ", ".join(_shown(info.filename) for info in candidates[:5])
        message = f"the zip holds more than one boundary file ({names}); send one per zip, or "
        raise _refuse("zip_ambiguous", message + "choose one by its name as the layer")
    chosen = candidates[0]
    if _suffix(chosen) != ".shp":
        return [chosen]
    parts = {_suffix(info): info for info in files if _stem(info) == _stem(chosen)}
    missing = [suffix for suffix in _REQUIRED_SIDECARS if suffix not in parts]
    if missing:
        message = (
            f"the shapefile {_shown(chosen.filename)} has no {' or '.join(missing)} file beside it"
        )
        raise _refuse("zip_missing_shapefile_parts", message)
    sidecars = _REQUIRED_SIDECARS + _OPTIONAL_SIDECARS
    return [chosen] + [parts[suffix] for suffix in sidecars if suffix in parts]


def _check_extracted_size(members: list[zipfile.ZipInfo], limits: InputLimits) -> None:
    declared = sum(member.file_size for member in members)
    if declared > limits.max_file_bytes:
        message = f"the zip's boundary file expands to {declared:,} bytes; at most "
        message += f"{limits.max_file_bytes:,} are allowed, as for a file sent unzipped"
        raise _refuse("file_too_large", message)


def _copy(archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, budget: int) -> int:
    """Copy one member, counting real bytes: declared sizes in a hostile zip can lie."""
    with _reading(member):
        source = archive.open(member)
    with source, target.open("wb") as sink:
        while True:
            with _reading(member):
                chunk = source.read(_CHUNK)
            if not chunk:
                return budget
            budget -= len(chunk)
            if budget < 0:
                message = "the zip expands to more bytes than its entries declare, beyond "
                raise _refuse("zip_total_too_large", message + "the allowed size")
            sink.write(chunk)


@contextmanager
def _reading(member: zipfile.ZipInfo) -> Iterator[None]:
    """Errors while reading the archive are bad input; errors writing the copy are not."""
    try:
        yield
    except _READ_ERRORS:
        message = f"the zip entry {_shown(member.filename)} cannot be read (corrupt or encrypted)"
        raise _refuse("invalid_zip", message) from None


def _unsafe(info: zipfile.ZipInfo) -> bool:
    name = info.filename
    absolute = name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name) is not None
    climbs = ".." in re.split(r"[/\\]", name)
    symlink = (info.external_attr >> 16) & 0o170000 == _SYMLINK
    return absolute or climbs or symlink


def safe_filename(name: str) -> bool:
    """A file name with no control characters (a newline forges log lines) whose every part
    fits a file system; any letters, spaces and punctuation are fine."""
    parts = re.split(r"[/\\]", name)
    control = any(unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in _BIDI for c in name)
    return not control and all(len(part) <= MAX_NAME_CHARS for part in parts)


def _shown(name: str) -> str:
    return repr(name) if len(name) <= 60 else repr(name[:57] + "...")


def _junk(name: str) -> bool:
    base = PurePosixPath(name.replace("\\", "/")).name
    return name.startswith("__MACOSX/") or base.startswith("._") or base == ".DS_Store"


def _unknown_layer(candidates: list[zipfile.ZipInfo], layer: str) -> list[zipfile.ZipInfo]:
    names = ", ".join(repr(PurePosixPath(info.filename).stem[:60]) for info in candidates[:20])
    message = f"the zip holds no boundary file called {layer[:60]!r} (it holds {names})"
    raise _refuse("unknown_layer", message)


def _name(info: zipfile.ZipInfo) -> str:
    """The entry's file name without folder or suffix, case-folded: what a layer calls it."""
    return PurePosixPath(info.filename.replace("\\", "/")).stem.casefold()


def _stem(info: zipfile.ZipInfo) -> str:
    """The entry's path without its suffix, case-folded: sidecars must sit beside the .shp."""
    return info.filename[: len(info.filename) - len(_suffix(info))].casefold()


def _suffix(info: zipfile.ZipInfo) -> str:
    return PurePosixPath(info.filename).suffix.lower()
