"""Small files, huge cost: each is refused from the file's own structure, before it costs.

Every file is built here; none is large. That a refusal came before the cost is shown by
construction: GDAL's reader (or PROJ) is replaced by one that fails the test if called, and
the recursive view runs in a child process with a timeout, so a hang fails rather than hangs.
"""

from __future__ import annotations

import io
import itertools
import json
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pyogrio.raw
import pytest
import shapely
from shapely.geometry import Polygon

from nrf.adapters.site_boundaries import boundary_crs
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.adapters.site_boundaries.geopackage_tables import opened
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import InputLimits, validate_features
from support.boundary_sites import RECURSIVE, X, Y, with_view, write_sites


def refused(read: object) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        read()  # type: ignore[operator]
    return caught.value


@pytest.fixture
def gdal_must_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> object:
        raise AssertionError("GDAL was asked to build the geometries")

    monkeypatch.setattr(pyogrio.raw, "read", fail)


ZEROBLOB = "SELECT fid, zeroblob(900000000) AS geom, id FROM real_sites"


def test_a_recursive_view_is_refused_and_the_read_returns(tmp_path: Path) -> None:
    path = with_view(tmp_path / "recursive.gpkg", RECURSIVE)
    program = (
        "import sys\n"
        "from nrf.adapters.site_boundaries.boundary_files import read_boundary_file\n"
        "from nrf.domain.errors import InvalidInput\n"
        "try:\n"
        "    read_boundary_file(sys.argv[1])\n"
        "except InvalidInput as error:\n"
        "    print(' '.join(error.codes))\n"
    )
    # Before the fix this ran until killed; 120 s is far beyond a refusal's cost.
    done = subprocess.run(
        [sys.executable, "-c", program, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["layer_not_a_table"], done.stderr


def test_a_view_over_zeroblob_is_refused_before_any_read(
    tmp_path: Path, gdal_must_not_read: None
) -> None:
    path = with_view(tmp_path / "zeroblob.gpkg", ZEROBLOB)
    error = refused(lambda: read_boundary_bytes(path.read_bytes(), "upload.gpkg"))
    assert error.codes == ["layer_not_a_table"] and "a view" in error.message


def test_a_column_computed_on_every_read_is_refused(
    tmp_path: Path, gdal_must_not_read: None
) -> None:
    path = write_sites(tmp_path / "computed.gpkg", 1)
    with sqlite3.connect(path) as db:
        [(layer,)] = db.execute("SELECT table_name FROM gpkg_contents").fetchall()
        db.execute(f'ALTER TABLE "{layer}" ADD COLUMN big BLOB AS (zeroblob(900000000))')
    assert refused(lambda: read_boundary_file(path)).codes == ["layer_not_a_table"]


def test_a_statement_past_the_deadline_is_interrupted(tmp_path: Path) -> None:
    path = write_sites(tmp_path / "sites.gpkg", 1)
    # The clock reads 0 when the file is opened (deadline 0 + 20 s), then 100 s for ever:
    # the first check of the progress handler finds the deadline passed.
    clock = itertools.chain([0.0], itertools.repeat(100.0)).__next__
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"
    with pytest.raises(InvalidInput) as caught, opened(path, InputLimits(), clock) as db:
        db.execute(endless).fetchone()
    assert caught.value.codes == ["read_timed_out"]


def star(vertices: int) -> Polygon:
    """A closed ring of ``vertices`` points (the last repeats the first) round a circle."""
    angles = np.linspace(0, 2 * np.pi, vertices - 1, endpoint=False)
    ring = np.column_stack([X + 50 + 40 * np.cos(angles), Y + 50 + 40 * np.sin(angles)])
    return Polygon(ring)


def write_polygons(path: Path, polygons: list[Polygon]) -> Path:
    n = len(polygons)
    pyogrio.raw.write(
        path,
        np.array([shapely.to_wkb(p) for p in polygons], dtype=object),
        [np.array([f"S{i}" for i in range(n)]), np.array([1] * n)],
        fields=["id", "dwellings"],
        geometry_type="Polygon",
        crs="EPSG:27700",
        driver="GPKG" if path.suffix == ".gpkg" else "ESRI Shapefile",
    )
    return path


def zipped(shp: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for part in shp.parent.glob(shp.stem + ".*"):
            archive.write(part, part.name)
    return buffer.getvalue()


@pytest.mark.parametrize("suffix", [".shp", ".gpkg"])
def test_too_many_vertices_is_counted_from_the_file_before_building(
    tmp_path: Path, suffix: str
) -> None:
    # 1,001 points: 1,000 round the circle and the first repeated to close the ring.
    path = write_polygons(tmp_path / f"one{suffix}", [star(1_001)])
    data = zipped(path) if suffix == ".shp" else path.read_bytes()
    name = "upload.zip" if suffix == ".shp" else "upload.gpkg"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pyogrio.raw, "read", lambda *a, **k: pytest.fail("GDAL built it"))
        for limits in (
            InputLimits(max_vertices_per_feature=1_000),
            InputLimits(max_total_vertices=1_000),
        ):
            error = refused(lambda: read_boundary_bytes(data, name, limits))  # noqa: B023
            assert error.codes == ["too_many_vertices"]
    # At exactly the limit it is read and builds: the count is the real one, not an estimate.
    limits = InputLimits(max_vertices_per_feature=1_001, max_total_vertices=1_001)
    [site] = read_boundary_bytes(data, name, limits)
    assert shapely.get_num_coordinates(site.geometry) == 1_001


def test_two_sites_within_each_limit_but_over_the_total(tmp_path: Path) -> None:
    # 501 + 501 = 1,002 vertices in all: each is under 1,000, together they are over.
    two = [star(501), shapely.affinity.translate(star(501), 200)]
    for suffix in (".shp", ".gpkg"):
        path = write_polygons(tmp_path / f"two{suffix}", two)
        error = refused(lambda: read_boundary_file(path, InputLimits(max_total_vertices=1_000)))  # noqa: B023
        assert error.codes == ["too_many_vertices"] and error.problems[0].feature is None


def geojson_with_crs(name: str) -> bytes:
    ring = [[X, Y], [X + 100, Y], [X + 100, Y + 100], [X, Y + 100], [X, Y]]
    return json.dumps(
        {
            "type": "Feature",
            "crs": {"type": "name", "properties": {"name": name}},
            "properties": {"id": "a", "dwellings": 1},
            "geometry": {"type": "Polygon", "coordinates": [ring]},
        }
    ).encode()


def test_a_crs_name_of_a_megabyte_is_refused_before_proj_sees_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(boundary_crs, "CRS", lambda *a: pytest.fail("PROJ was asked"))
    boundary_crs._classify.cache_clear()
    name = "urn:ogc:def:crs:EPSG::27700" + " " * 1024 * 1024
    error = refused(lambda: read_boundary_bytes(geojson_with_crs(name), "site.geojson"))
    assert error.codes == ["unsupported_crs"] and len(error.message) < 300


def test_a_crs_name_of_300_characters_still_reaches_proj(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def proj(text: str) -> object:
        asked.append(len(text))
        raise boundary_crs.CRSError("unknown")

    monkeypatch.setattr(boundary_crs.CRS, "from_user_input", proj)
    boundary_crs._classify.cache_clear()
    for length in (300, 301):
        with pytest.raises(InvalidInput):
            boundary_crs.accepted_crs("x" * length, boundary_crs.MAX_CRS_NAME_CHARS)
    boundary_crs._classify.cache_clear()
    assert asked == [300]  # 301 was refused before PROJ was asked


def test_the_real_crs_names_are_well_within_the_limit() -> None:
    for name in (
        "EPSG:27700",
        "urn:ogc:def:crs:EPSG::27700",
        "http://www.opengis.net/def/crs/EPSG/0/27700",
    ):
        assert boundary_crs.accepted_crs(name, boundary_crs.MAX_CRS_NAME_CHARS) == "EPSG:27700"


def named_site(name: str) -> bytes:
    ring = [[X, Y], [X + 100, Y], [X + 100, Y + 100], [X, Y + 100], [X, Y]]
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    props = {"id": "a", "name": name, "dwelling_category": "housing", "source": "", "dwellings": 1}
    feature = {
        "type": "Feature",
        "properties": props,
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }
    return json.dumps({"type": "FeatureCollection", "crs": crs, "features": [feature]}).encode()


def test_text_is_at_most_500_characters_as_in_the_queue_message() -> None:
    [ok] = validate_features(read_boundary_bytes(named_site("n" * 500), "s.geojson"))
    assert ok.name == "n" * 500
    error = refused(
        lambda: validate_features(read_boundary_bytes(named_site("n" * 501), "s.geojson"))
    )
    [problem] = error.problems
    assert (problem.code, problem.field, problem.feature) == ("invalid_text", "name", 1)
    assert "501 characters" in problem.message and "n" * 100 not in error.message


def test_a_lone_surrogate_is_an_input_error() -> None:
    data = named_site("Hall").replace(b'"Hall"', b'"Hall\\ud800"')
    error = refused(lambda: validate_features(read_boundary_bytes(data, "s.geojson")))
    [problem] = error.problems
    assert (problem.code, problem.field) == ("invalid_text", "name")
    problem.message.encode("utf-8")  # the message itself can be written anywhere


def test_gdal_errors_about_an_upload_name_no_server_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def gdal_says(path: object, **kwargs: object) -> object:
        raise pyogrio.errors.DataSourceError(
            f"{path}: sqlite3_prepare_v2(SELECT fid FROM x) failed: no such column"
        )

    data = write_sites_bytes()
    monkeypatch.setattr(pyogrio, "read_info", gdal_says)
    error = refused(lambda: read_boundary_bytes(data, "upload.gpkg"))
    assert error.codes == ["unreadable_file"]
    assert "nrf-boundary" not in error.message and "SELECT" not in error.message
    # main's unreadable_message says what GDAL's words mean ("no such column") in the file's terms.
    assert "refers to a column it does not hold" in error.message


def write_sites_bytes() -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        return write_sites(Path(folder) / "s.gpkg", 1).read_bytes()
