"""Every site of a shapefile is quoted exactly once, or the file is refused.

Files are saved by GDAL (``write_sites``: sites S1..Sn in order) and then edited byte by byte
as GIS software or an attacker leaves them (``support.shapefile_bytes``): a .dbf record flagged
deleted (a GIS's "not there": skipped with its shape, the site count leaving it out), a .shp
holding polygons its .shx does not index, and a .shx pointing two records at one polygon.
Each way in is tried: ``nrf assess`` (its reader pages a shapefile 1,000 records at a time),
a whole read by path, an upload's zip and the worker's S3 object, and the API.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.adapters.site_boundaries.boundary_stream import open_boundary_file
from nrf.adapters.site_boundaries.ogr_pages import check_ids_ascend
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.errors import InvalidInput
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.boundary_sites import write_sites
from support.s3_input import OneObject, uri_job
from support.shapefile_bytes import delete_record, index_first_only, repeat_first_offset, zipped


def ids(features: object) -> list[str]:
    return [str(f.properties["id"]) for f in features]  # type: ignore[attr-defined]


def streamed_ids(shp: Path) -> tuple[int, list[str]]:
    """The site count and ids as `nrf assess`'s reader gives them, 1,000 records a read."""
    with open_boundary_file(shp) as source:
        return source.count, ids(source.features())


def quoted_ids(output: Path) -> Counter[str]:
    document = json.loads(output.read_text(encoding="utf-8"))
    entries = document["sites"] + document["out_of_scope"]
    return Counter(str(entry["site"]["id"]) for entry in entries)


@pytest.fixture(scope="module")
def deleted_in_first_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,500 sites, record 11 (S11) flagged deleted: 1,499 sites."""
    folder = tmp_path_factory.mktemp("deleted")
    return delete_record(write_sites(folder / "sites.shp", 1500), 10)


def test_a_deleted_record_is_left_out_of_every_page_and_no_site_is_read_twice(
    deleted_in_first_page: Path,
) -> None:
    count, read = streamed_ids(deleted_in_first_page)
    # Before: pages of skip 0 and skip 1000 overlapped on S1001 and S11 was gone, 1,500 in all.
    expected = [f"S{i}" for i in range(1, 1501) if i != 11]
    assert (count, read) == (1499, expected)


def test_a_whole_read_of_it_is_the_same_sites(deleted_in_first_page: Path) -> None:
    expected = [f"S{i}" for i in range(1, 1501) if i != 11]
    assert ids(read_boundary_file(deleted_in_first_page)) == expected  # refused before
    data = zipped(deleted_in_first_page)
    assert ids(read_boundary_bytes(data, "upload.zip")) == expected
    source = S3JobBoundarySource(OneObject(data), "nrf-in", "jobs")
    assert ids(source.features(uri_job("sites.zip"))) == expected


def test_nrf_assess_quotes_each_of_the_1499_sites_once(
    deleted_in_first_page: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.json"
    assert main(["assess", str(deleted_in_first_page), "--output", str(output)]) == 0
    quoted = quoted_ids(output)
    assert quoted == Counter(f"S{i}" for i in range(1, 1501) if i != 11)
    assert "assessed 1,499 sites" in capsys.readouterr().err


def test_a_small_file_with_a_deleted_record_reads_whole_and_streamed(tmp_path: Path) -> None:
    shp = delete_record(write_sites(tmp_path / "sites.shp", 4), 0)
    assert streamed_ids(shp) == (3, ["S2", "S3", "S4"])
    assert ids(read_boundary_file(shp)) == ["S2", "S3", "S4"]


def test_a_file_whose_every_record_is_deleted_is_empty(tmp_path: Path) -> None:
    shp = delete_record(delete_record(write_sites(tmp_path / "sites.shp", 2), 0), 1)
    with pytest.raises(InvalidInput) as caught:
        read_boundary_file(shp)
    assert caught.value.codes == ["empty_file"]


def refusals(shp: Path) -> list[InvalidInput]:
    """The refusal of each way in: path (whole and streamed), zip upload, worker's object."""
    found = []
    data = zipped(shp)
    source = S3JobBoundarySource(OneObject(data), "nrf-in", "jobs")
    for read in (
        lambda: read_boundary_file(shp),
        lambda: streamed_ids(shp),
        lambda: read_boundary_bytes(data, "upload.zip"),
        lambda: source.features(uri_job("sites.zip")),
    ):
        with pytest.raises(InvalidInput) as caught:
            read()
        found.append(caught.value)
    return found


def test_polygons_the_shx_does_not_index_are_refused(tmp_path: Path) -> None:
    shp = index_first_only(write_sites(tmp_path / "sites.shp", 3))
    for error in refusals(shp):  # before: read as 1 site, S1
        [problem] = error.problems
        assert problem.code == "source_corrupt"
        # Each 100 m square: 8-byte record header + 128 bytes of content (4 type, 32 box,
        # 4 parts, 4 points, 4 part index, 5 points x 16): 136 bytes; record 1 ends at 236,
        # the file at 100 + 3 x 136 = 508, so 272 bytes are not indexed.
        assert "holds 272 bytes from byte 236" in problem.message


def test_two_index_entries_on_one_polygon_are_refused(tmp_path: Path) -> None:
    shp = repeat_first_offset(write_sites(tmp_path / "sites.shp", 3))
    for error in refusals(shp):  # before: S1 and S2 both priced on the first square
        [problem] = error.problems
        assert problem.code == "source_corrupt"
        assert "records 1 and 2 at overlapping bytes" in problem.message


def test_nrf_assess_and_the_api_refuse_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    unindexed = index_first_only(write_sites(tmp_path / "a" / "sites.shp", 3))
    doubled = repeat_first_offset(write_sites(tmp_path / "b" / "sites.shp", 3))
    client = anonymous_client()
    for shp in (unindexed, doubled):
        assert main(["assess", str(shp)]) == EXIT_INVALID_INPUT
        assert "source_corrupt" in capsys.readouterr().err
        body, content_type = multipart({"boundary": ("sites.zip", zipped(shp))}, {})
        headers = {"Content-Type": content_type}
        answer = client.simulate_post("/v1/quotes", body=body, headers=headers)
        assert (answer.status_code, answer.json["code"]) == (422, "source_corrupt")


def test_a_page_whose_ids_do_not_rise_from_the_last_is_refused() -> None:
    assert check_ids_ascend([1000, 1001], 999) == 1001
    for fids, last in (([999, 1000], 999), ([5, 4], 3)):
        with pytest.raises(InvalidInput) as caught:
            check_ids_ascend(fids, last)
        assert caught.value.codes == ["source_corrupt"]


@pytest.mark.parametrize("bad", ["sites.shx", "sites.SHX"])
def test_two_parts_of_one_kind_beside_a_shp_are_refused_not_one_picked(
    tmp_path: Path, bad: str
) -> None:
    """sites.shx and sites.SHX (two exports copied into one folder from Windows): GDAL reads
    one and the checks read whichever the folder listed last, so a .shx indexing one polygon
    twice could pass its check unread."""
    shp = write_sites(tmp_path / "sites.shp", 3)
    good = shp.with_suffix(".shx").read_bytes()
    repeat_first_offset(shp)
    repeated = shp.with_suffix(".shx").read_bytes()
    shp.with_suffix(".shx").unlink()
    for name in ("sites.shx", "sites.SHX"):
        (tmp_path / name).write_bytes(repeated if name == bad else good)
    for read in (lambda: read_boundary_file(shp), lambda: streamed_ids(shp)):
        with pytest.raises(InvalidInput) as caught:
            read()  # before: S1, S2, S3 or a repeated offset, by the folder's listing order
        [problem] = caught.value.problems
        assert problem.code == "source_corrupt"
        assert "'sites.SHX'" in problem.message and "'sites.shx'" in problem.message
