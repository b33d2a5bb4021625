"""A file whose own counts disagree is refused, not read short: no site is silently dropped.

GDAL reads as many features as a GeoPackage's ``gpkg_ogr_contents`` or a shapefile's .dbf
header says; both are edited here (sqlite3, and the four header bytes) so the file claims
1 feature while holding 3, and each way in (a path, bytes from S3 or an upload, a zip, the
CLI, the API) must refuse it naming both counts.
"""

from __future__ import annotations

import io
import sqlite3
import zipfile
from pathlib import Path

import pytest

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import InputLimits
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.boundary_sites import write_sites
from support.s3_input import OneObject, uri_job


def stale_gpkg(path: Path, rows: int, claimed: int | None) -> Path:
    write_sites(path, rows)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE gpkg_ogr_contents SET feature_count = ?", (claimed,))
    return path


def cut_dbf(shp: Path, claimed: int) -> Path:
    """The .dbf's record count (4 bytes, little-endian, at byte 4) set to ``claimed``."""
    dbf = shp.with_suffix(".dbf")
    data = bytearray(dbf.read_bytes())
    data[4:8] = claimed.to_bytes(4, "little")
    dbf.write_bytes(bytes(data))
    return shp


def zipped(shp: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for part in shp.parent.glob(shp.stem + ".*"):
            archive.write(part, part.name)
    return buffer.getvalue()


def refusal(read: object) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        read()  # type: ignore[operator]
    return caught.value


def test_the_files_as_saved_read_all_three_sites(tmp_path: Path) -> None:
    assert len(read_boundary_file(write_sites(tmp_path / "a.gpkg", 3))) == 3
    assert len(read_boundary_file(write_sites(tmp_path / "a.shp", 3))) == 3


def test_a_geopackage_claiming_one_of_its_three_rows_is_corrupt(tmp_path: Path) -> None:
    path = stale_gpkg(tmp_path / "sites.gpkg", rows=3, claimed=1)
    for error in (
        refusal(lambda: read_boundary_file(path)),
        refusal(lambda: read_boundary_bytes(path.read_bytes(), "upload.gpkg")),
    ):
        [problem] = error.problems
        assert problem.code == "source_corrupt"
        assert "holds 1 feature " in problem.message and "has 3 rows" in problem.message
        assert str(tmp_path) not in problem.message and "/tmp" not in problem.message


def test_the_feature_limit_counts_rows_not_the_stored_count(tmp_path: Path) -> None:
    # 3 rows, stored count removed (GDAL then counts itself): 3 > 2 is too many.
    path = stale_gpkg(tmp_path / "sites.gpkg", rows=3, claimed=None)
    error = refusal(lambda: read_boundary_file(path, InputLimits(max_features=2)))
    assert error.codes == ["too_many_features"] and "3 features" in error.message
    # A stored 1 over 3 rows never passes the limit of 2 as it used to.
    stale = stale_gpkg(tmp_path / "stale.gpkg", rows=3, claimed=1)
    error = refusal(lambda: read_boundary_file(stale, InputLimits(max_features=2)))
    assert error.codes == ["source_corrupt"]


def test_a_shapefile_whose_dbf_counts_fewer_records_than_the_shx_is_corrupt(
    tmp_path: Path,
) -> None:
    shp = cut_dbf(write_sites(tmp_path / "sites.shp", 3), claimed=1)
    for error in (
        refusal(lambda: read_boundary_file(shp)),
        refusal(lambda: read_boundary_bytes(zipped(shp), "upload.zip")),
    ):
        [problem] = error.problems
        assert problem.code == "source_corrupt"
        # The .shx: 100-byte header + 3 records x 8 bytes = 124 bytes, (124 - 100) / 8 = 3.
        assert "record count of 1" in problem.message
        assert "shape count of 3" in problem.message


def test_nrf_assess_refuses_it_with_the_input_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = stale_gpkg(tmp_path / "sites.gpkg", rows=3, claimed=1)
    assert main(["assess", str(path)]) == EXIT_INVALID_INPUT
    err = capsys.readouterr().err
    assert "source_corrupt" in err and "1 feature" in err and "3 rows" in err


def test_the_api_refuses_an_upload_with_422(tmp_path: Path) -> None:
    client = anonymous_client()
    shp = cut_dbf(write_sites(tmp_path / "sites.shp", 3), claimed=1)
    body, content_type = multipart({"boundary": ("sites.zip", zipped(shp))}, {})
    answer = client.simulate_post("/v1/quotes", body=body, headers={"Content-Type": content_type})
    assert answer.status_code == 422
    assert answer.json["code"] == "source_corrupt"
    assert "nrf-boundary" not in answer.text and "/tmp" not in answer.text


def test_the_worker_refuses_it_as_input(tmp_path: Path) -> None:
    path = stale_gpkg(tmp_path / "sites.gpkg", rows=3, claimed=1)
    source = S3JobBoundarySource(OneObject(path.read_bytes()), "nrf-in", "jobs")
    request = uri_job("sites.gpkg")
    assert refusal(lambda: source.features(request)).codes == ["source_corrupt"]
