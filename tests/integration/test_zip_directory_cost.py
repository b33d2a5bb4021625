"""A zip's central directory is bounded before Python's zipfile lists it.

zipfile builds an object for every entry of the central directory before anything can count
them: a 47 MB upload of 1,000,000 empty entries (no local headers, no data: the directory
alone) grew an API process by 467 MB and took 11 s before it was refused as
``zip_too_many_files``. The zips here are written byte by byte, as an attacker would.
"""

from __future__ import annotations

import io
import struct
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.adapters.site_boundaries.boundary_stream import open_boundary_file
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import MIB
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.boundary_sites import write_sites
from support.s3_input import OneObject, uri_job

# PKWARE APPNOTE 4.3.12: a central directory header with no extra field or comment.
_ENTRY = struct.pack(
    "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0
)


def directory_only_zip(entries: int) -> bytes:
    """A zip of ``entries`` empty entries named "a": a central directory and its end record
    (zip64's for more than 65,535), nothing else. Listing it is all zipfile does first."""
    directory = (_ENTRY + b"a") * entries
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    record64 = struct.pack(
        "<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, entries, entries, len(directory), 0
    )
    locator = struct.pack("<IIQI", 0x07064B50, 0, len(directory), 1)
    return directory + record64 + locator + end


DATA = directory_only_zip(200_000)  # 9.4 MB, well under the 50 MiB upload limit


def traced_peak(read: Callable[[], object]) -> tuple[list[str], int]:
    """The codes ``read`` is refused with, and the most memory Python held meanwhile."""
    tracemalloc.start()
    try:
        with pytest.raises(InvalidInput) as caught:
            read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return caught.value.codes, peak


def test_a_directory_of_200000_empty_entries_is_refused_before_it_is_listed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sites.zip"
    path.write_bytes(DATA)
    source = S3JobBoundarySource(OneObject(DATA), "nrf-in", "jobs")
    for read in (
        lambda: read_boundary_bytes(DATA, "sites.zip"),  # an upload
        lambda: source.features(uri_job("sites.zip")),  # the worker's object
        lambda: open_boundary_file(path).__enter__(),  # nrf assess
    ):
        codes, peak = traced_peak(read)
        assert codes == ["zip_too_many_files"]
        # Before: the 200,000 entries were listed, then refused (73 MB traced).
        assert peak < 2 * MIB


def test_the_api_refuses_it_holding_little_more_than_the_body() -> None:
    client = anonymous_client()
    body, content_type = multipart({"boundary": ("sites.zip", DATA)}, {"dwellings": "10"})
    tracemalloc.start()
    try:
        headers = {"Content-Type": content_type}
        answer = client.simulate_post("/v1/quotes", body=body, headers=headers)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (answer.status_code, answer.json["code"]) == (413, "zip_too_many_files")
    assert peak < 2 * len(DATA)  # the body read once; before, 73 MB more


def test_a_zip_of_the_most_entries_allowed_is_still_read(tmp_path: Path) -> None:
    """The control: 100 entries with long names and extra fields are listed as before."""
    folder = tmp_path / "export"
    folder.mkdir()
    write_sites(folder / "sites.shp", 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for part in sorted(folder.iterdir()):
            archive.write(part, part.name)
        for n in range(100 - len(archive.infolist())):
            archive.writestr(f"{'notes-' * 40}{n:03}.txt", b"")  # 243-character names
    assert len(read_boundary_bytes(buffer.getvalue(), "sites.zip")) == 1
