"""A small upload costs what its size says: no expansion, encoding or column read unbounded.

Three files the last attack used, built for real: a KMZ whose KML expands past the file-size
limit (answered 200 by the API, which screened the whole expanded KML in memory), a
GeoPackage whose geometry is in SpatiaLite's encoding or carries GeoPackage's "extended type"
flag (its vertices went uncounted, so GDAL built them unchecked), and a GeoPackage with an
unused text column of 70,000 characters (read and copied in full). The figures for the
full-size files are measured by ``benchmarks/upload_memory.py`` (docs/security.md).
"""

from __future__ import annotations

import sqlite3
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pyogrio.raw
import pytest
from shapely.geometry import box
from test_boundary_kml import kml, kmz, placemark

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.adapters.site_boundaries.boundary_kml import screen_kml
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import MIB, InputLimits
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.boundary_sites import write_sites
from support.reference import STRIP_ORIGIN
from support.s3_input import OneObject, uri_job

SMALL = InputLimits(max_file_bytes=1 * MIB)
X, Y = STRIP_ORIGIN


def padded_kml(padding: int) -> bytes:
    """One site and ``padding`` spaces: a KML that deflates to almost nothing."""
    return kml(("sites", [placemark("S1")])).replace(b"<Document>", b"<Document>" + b" " * padding)


def refused(read: object) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        read()  # type: ignore[operator]
    return caught.value


def test_a_kmz_expanding_past_the_file_limit_is_refused_on_every_way_in(tmp_path: Path) -> None:
    data = kmz(padded_kml(2 * MIB))  # about 4 kB zipped, 2 MiB of KML: over the 1 MiB limit
    assert len(data) < 10_000
    source = S3JobBoundarySource(OneObject(data), "nrf-in", "jobs", SMALL)
    for error in (
        refused(lambda: read_boundary_bytes(data, "sites.kmz", SMALL)),  # was read: 1 site
        refused(lambda: source.features(uri_job("sites.kmz"))),
    ):
        assert error.codes == ["file_too_large"]
    client = anonymous_client(SMALL)
    body, content_type = multipart({"boundary": ("sites.kmz", data)}, {"dwellings": "10"})
    answer = client.simulate_post("/v1/quotes", body=body, headers={"Content-Type": content_type})
    assert (answer.status_code, answer.json["code"]) == (413, "file_too_large")
    (tmp_path / "sites.kmz").write_bytes(data)
    unzipped = kmz(padded_kml(0))
    assert len(read_boundary_bytes(unzipped, "sites.kmz", SMALL)) == 1  # the control


def test_the_kml_screen_reads_a_block_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "sites.kml"
    path.write_bytes(padded_kml(20 * MIB))
    tracemalloc.start()
    try:
        screen_kml(path, InputLimits())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A few 1 MiB blocks at once (the block, the window and its upper-cased copy); before:
    # the whole 20 MiB file and its upper-cased copy, over 40 MiB.
    assert peak < 8 * MIB


def test_a_declaration_across_two_blocks_is_still_found(tmp_path: Path) -> None:
    path = tmp_path / "sites.kml"
    head = b'<?xml version="1.0"?>'
    gap = b" " * (MIB - len(head) - 4)  # "<!DO" ends the first 1 MiB block, "CTYPE" starts the next
    path.write_bytes(head + gap + b"<!doctype kml [<!ENTITY a 'b'>]>" + padded_kml(0)[len(head) :])
    assert refused(lambda: screen_kml(path, InputLimits())).codes == ["unreadable_file"]


def gp_blob(wkb: bytes, flags: int = 0b1) -> bytes:
    """A GeoPackage geometry: "GP", version 0, flags (little-endian, no envelope), SRID 27700."""
    return b"GP" + bytes([0, flags]) + struct.pack("<i", 27700) + wkb


def spatialite_polygon(points: list[tuple[float, float]]) -> bytes:
    """SpatiaLite's blob: 0x00, little-endian, SRID, MBR, 0x7C, class 3 (polygon), 1 ring."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    body = struct.pack("<iii", 3, 1, len(points)) + b"".join(struct.pack("<dd", *p) for p in points)
    mbr = struct.pack("<dddd", min(xs), min(ys), max(xs), max(ys))
    return b"\x00\x01" + struct.pack("<i", 27700) + mbr + b"\x7c" + body + b"\xfe"


def with_geometry(path: Path, blob: bytes) -> Path:
    write_sites(path, 1)
    with sqlite3.connect(path) as db:
        [(table, column)] = db.execute(
            "SELECT table_name, column_name FROM gpkg_geometry_columns"
        ).fetchall()
        # GDAL's spatial-index triggers call SpatiaLite functions this sqlite3 lacks.
        triggers = db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (trigger,) in triggers.fetchall():
            db.execute(f'DROP TRIGGER "{trigger}"')
        db.execute(f'UPDATE "{table}" SET "{column}" = ?', (blob,))
    db.close()
    return path


def ring(vertices: int) -> list[tuple[float, float]]:
    """A closed ring of ``vertices`` points round a 100 m square's edge."""
    step = 400 / (vertices - 1)
    points = []
    for i in range(vertices - 1):
        d = i * step
        side, along = divmod(d, 100)
        corners = [(X + along, Y), (X + 100, Y + along), (X + 100 - along, Y + 100)]
        corners.append((X, Y + 100 - along))
        points.append(corners[int(side)])
    return [*points, points[0]]


def test_geometries_that_cannot_be_counted_are_refused_before_gdal_builds_them(
    tmp_path: Path,
) -> None:
    limits = InputLimits(max_vertices_per_feature=100)
    points = ring(1001)  # 1,001 vertices: over 100, uncounted before
    standard = shapely_wkb(points)
    extended = with_geometry(tmp_path / "extended.gpkg", gp_blob(standard, flags=0b100001))
    spatialite = with_geometry(tmp_path / "spatialite.gpkg", spatialite_polygon(points))
    counted = with_geometry(tmp_path / "standard.gpkg", gp_blob(standard))
    assert refused(lambda: read_boundary_file(counted, limits)).codes == ["too_many_vertices"]
    for path in (extended, spatialite):
        for error in (
            refused(lambda: read_boundary_file(path, limits)),  # noqa: B023
            refused(lambda: read_boundary_bytes(path.read_bytes(), "sites.gpkg", limits)),  # noqa: B023
        ):
            [problem] = error.problems
            assert (problem.code, problem.feature) == ("invalid_geometry", 1)
            assert "not stored as standard GeoPackage WKB" in problem.message


def shapely_wkb(points: list[tuple[float, float]]) -> bytes:
    from shapely.geometry import Polygon

    return bytes(Polygon(points).wkb)


def notes_geopackage(path: Path, characters: int) -> Path:
    """One good site and a ``notes`` column nrf never reads, ``characters`` long."""
    columns = {"id": ["S1"], "dwellings": [10], "notes": ["x" * characters]}
    pyogrio.raw.write(
        path,
        np.array([box(X, Y, X + 100, Y + 100).wkb], dtype=object),
        [np.array(v, dtype=object if k != "dwellings" else None) for k, v in columns.items()],
        fields=list(columns),
        geometry_type="Polygon",
        crs="EPSG:27700",
        driver="GPKG",
    )
    return path


def test_an_unused_column_longer_than_any_value_may_be_is_refused_before_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = notes_geopackage(tmp_path / "long.gpkg", 70_000)  # over 65,536 bytes
    error = refused(lambda: read_boundary_file(long))  # before: read, 1 site
    assert error.codes == ["invalid_text"] and "'notes'" in error.message
    assert refused(lambda: read_boundary_bytes(long.read_bytes(), "s.gpkg")).codes == [
        "invalid_text"
    ]
    assert main(["assess", str(long)]) == EXIT_INVALID_INPUT
    assert "invalid_text" in capsys.readouterr().err
    fine = notes_geopackage(tmp_path / "fine.gpkg", 65_536)
    assert len(read_boundary_file(fine)) == 1


def test_a_kml_description_longer_than_any_value_may_be_is_refused_in_the_reader(
    tmp_path: Path,
) -> None:
    # A KML has no database to ask first: the reading child checks the rows it read before
    # they cross to the API's process (a 45 MB description cost twice that there).
    mark = placemark("S1").replace(
        "</name>", "</name><description>" + "d" * 70_000 + "</description>"
    )
    data = kml(("sites", [mark]))
    for error in (
        refused(lambda: read_boundary_bytes(data, "sites.kml")),  # before: read, 1 site
        refused(lambda: read_boundary_bytes(kmz(data), "sites.kmz")),
    ):
        assert error.codes == ["invalid_text"] and "'description'" in error.message
    path = tmp_path / "sites.kml"
    path.write_bytes(data)
    assert refused(lambda: read_boundary_file(path)).codes == ["invalid_text"]
    short = kml(
        ("sites", [placemark("S1").replace("</name>", "</name><description>d</description>")])
    )
    assert len(read_boundary_bytes(short, "sites.kml")) == 1  # the control
