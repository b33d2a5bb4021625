"""Hostile boundary files that once cost far more memory than their size: refused before parsing."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.adapters.site_boundaries.boundary_geojson import json_budget
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import InputLimits
from support.hostile import (
    SQUARE,
    circle_ring,
    many_vertices_geojson,
    nested_geojson_values,
    polygon,
)

# Budget: 4 × 1,000 vertices + 50 × 10 features + 1,000 = 5,500 brackets, commas and colons.
SMALL = InputLimits(max_total_vertices=1_000, max_features=10, max_vertices_per_feature=1_000)


def codes_of(data: bytes, name: str = "site.geojson", limits: InputLimits = SMALL) -> list[str]:
    with pytest.raises(InvalidInput) as refused:
        read_boundary_bytes(data, name, limits)
    return refused.value.codes


def test_the_budget_is_four_marks_per_vertex_and_fifty_per_feature() -> None:
    assert json_budget(SMALL) == 5_500
    # The defaults (docs/limits.md): 4 x 1,000,000 vertices + 50 x 10,000 features + 1,000.
    assert json_budget(InputLimits()) == 4_000_000 + 500_000 + 1_000


def test_a_geojson_within_the_vertex_limit_is_read() -> None:
    # 1,000 positions: "[x,y]," is 3 marks each, plus a handful for the geometry itself.
    [feature] = read_boundary_bytes(many_vertices_geojson(999), "site.geojson", SMALL)
    assert feature.problems == ()


def test_a_geojson_with_more_values_than_the_limits_allow_is_refused_unparsed() -> None:
    # 2,000 positions make about 6,000 marks: more than 5,500.
    assert codes_of(many_vertices_geojson(2_000)) == ["geojson_too_complex"]


def test_many_small_objects_in_a_property_are_refused_too() -> None:
    # Each {"a":1} is a brace, a colon and a comma: 2,000 of them are 6,000 marks.
    assert codes_of(nested_geojson_values(2_000)) == ["geojson_too_complex"]
    [feature] = read_boundary_bytes(nested_geojson_values(100), "site.geojson", SMALL)
    assert len(feature.properties["x"]) == 100  # type: ignore[arg-type]


def test_a_geojson_inside_a_zip_is_held_to_the_file_size_limit(tmp_path: Path) -> None:
    document = json.dumps(polygon(circle_ring(200))).encode()
    archive = tmp_path / "site.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("site.geojson", document + b" " * 20_000)  # spaces compress to nothing
    limits = InputLimits(max_file_bytes=10_000)
    assert archive.stat().st_size < 10_000 < len(document) + 20_000
    with pytest.raises(InvalidInput) as refused:
        read_boundary_file(archive, limits)
    assert refused.value.codes == ["file_too_large"]
    assert len(read_boundary_file(archive, InputLimits())) == 1


MEASURE = """
import json, sys
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.domain.errors import InvalidInput
data = open(sys.argv[1], "rb").read()
before = int([l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1])
open("/proc/self/clear_refs", "w").write("5")  # start VmHWM again from here
try:
    read_boundary_bytes(data, "site.geojson")
    codes = []
except InvalidInput as error:
    codes = error.codes
peak = int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1])
print(json.dumps({"codes": codes, "grew_mb": (peak - before) / 1024}))
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
def test_a_file_just_under_50_mib_of_positions_costs_little_memory(tmp_path: Path) -> None:
    # 2,000,000 positions in 49 MB: before the budget, reading it took ~740 MB more memory.
    data = many_vertices_geojson(2_000_000)
    assert len(data) < InputLimits().max_file_bytes
    path = tmp_path / "big.geojson"
    path.write_bytes(data)
    del data
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    measured = json.loads(done.stdout)
    assert measured["codes"] == ["geojson_too_complex"]
    assert measured["grew_mb"] < 50


def _zip_with_one_entry(name: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo(name), json.dumps(polygon(SQUARE)))
    return buffer.getvalue()


def test_a_zip_entry_without_a_name_is_unreadable_not_a_crash() -> None:
    # Found by scripts/fuzz: zipfile's own is_dir() raised IndexError on it.
    assert codes_of(_zip_with_one_entry(""), "site.zip") == ["invalid_zip"]


def test_a_zip_entry_with_a_negative_position_is_unreadable_not_a_crash(tmp_path: Path) -> None:
    # Found by scripts/fuzz: a central directory said to start further on than it does makes
    # zipfile place the entry before the file's start (ValueError in memory, OSError on disk).
    data = bytearray(_zip_with_one_entry("site.geojson"))
    end = data.rfind(b"PK\x05\x06")
    start = int.from_bytes(data[end + 16 : end + 20], "little")
    data[end + 16 : end + 20] = (start + 10).to_bytes(4, "little")
    assert zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()[0].header_offset < 0
    assert codes_of(bytes(data), "site.zip") == ["invalid_zip"]
    path = tmp_path / "site.zip"
    path.write_bytes(bytes(data))
    with pytest.raises(InvalidInput) as refused:
        read_boundary_file(path)
    assert refused.value.codes == ["invalid_zip"]


def test_a_corrupt_bzip2_entry_is_unreadable_not_a_crash() -> None:
    # Found by scripts/fuzz: the bz2 decompressor raises OSError("Invalid data stream").
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("site.geojson", json.dumps(polygon(SQUARE)))
    data = buffer.getvalue()
    start = data.index(b"BZh")
    broken = data[:start] + b"XXX" + data[start + 3 :]
    assert codes_of(broken, "site.zip") == ["invalid_zip"]


def test_a_local_header_name_that_is_not_utf8_is_unreadable_not_a_crash() -> None:
    # Found by scripts/fuzz: the local header claims UTF-8 but its name is not (ValueError).
    data = bytearray(_zip_with_one_entry("site.geojson"))
    flags = int.from_bytes(data[6:8], "little") | 0x800
    data[6:8] = flags.to_bytes(2, "little")
    data[30] = 0xC5  # the first byte of the name in the local header only
    assert codes_of(bytes(data), "site.zip") == ["invalid_zip"]


def test_a_crs_name_pyproj_cannot_turn_into_a_code_is_unsupported_not_a_crash() -> None:
    # Found by scripts/fuzz: pyproj's to_epsg() raised ValueError on this name.
    crs = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG:8240.0"}}
    document = polygon(SQUARE, crs=crs)
    assert codes_of(json.dumps(document).encode()) == ["unsupported_crs"]
