"""The gate's geometry rules report every bad feature, never only the first of a kind."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Point, Polygon, box

from nrf.adapters.boundary_data.geopackage_blob import encode_blob
from nrf.bundles.qc.geometry import check_geometries, decode
from nrf.bundles.qc.report import QcReport

X0, Y0 = 600_000.0, 300_000.0


def bowtie(x: float) -> Polygon:
    """Crosses itself at (x + 50, Y0 + 50)."""
    return Polygon([(x, Y0), (x + 100, Y0 + 100), (x + 100, Y0), (x, Y0 + 100)])


def test_every_invalid_missing_or_non_polygonal_feature_is_reported() -> None:
    geoms = np.array(
        [
            box(X0, Y0, X0 + 100, Y0 + 100),  # good
            bowtie(X0 + 200),
            Point(X0, Y0),
            bowtie(X0 + 400),
            None,
            Point(X0 + 1, Y0),
            None,
            bowtie(X0 + 600),
        ],
        dtype=object,
    )
    report = QcReport()
    good = check_geometries("layer", list("abcdefgh"), geoms, report)
    assert good.tolist() == [True, False, False, False, False, False, False, False]
    assert report.keys("geometry_invalid") == ["b", "d", "h"]
    assert report.keys("geometry_type") == ["c", "f"]
    assert report.keys("geometry_missing") == ["e", "g"]


def test_every_unreadable_blob_is_reported() -> None:
    # Two blobs of garbage among readable ones: decode falls back to one blob at a time.
    good = encode_blob(shapely.to_wkb(box(X0, Y0, X0 + 1, Y0 + 1)), 27700)
    report = QcReport()
    out = decode("layer", ["a", "b", "c", "d"], [b"junk", good, b"more junk", None], report)
    assert report.keys("geometry_invalid") == ["a", "c"]
    assert out[0] is None and out[2] is None


def test_each_finding_names_the_delivered_file_and_ends_with_its_fix() -> None:
    geoms = np.array([bowtie(X0), None, Point(X0, Y0), box(1.0, 52.0, 1.5, 52.5)], dtype=object)
    report = QcReport()
    check_geometries("lpa_boundaries", list("abcd"), geoms, report, source="LPA/LPA_National.shp")
    by_code = {f.code: f.detail for f in report.findings}
    assert set(by_code) == {
        "geometry_invalid",
        "geometry_missing",
        "geometry_type",
        "lonlat_coordinates",
    }
    assert all(d.startswith("in `LPA/LPA_National.shp`: ") for d in by_code.values())
    # The bowtie's diagonals cross at (X0 + 50, Y0 + 50).
    assert by_code["geometry_invalid"].startswith(
        "in `LPA/LPA_National.shp`: Self-intersection[600050 300050]: repair the polygon"
    )
    assert by_code["geometry_missing"].endswith("draw the feature's polygon, or delete the feature")
    assert by_code["lonlat_coordinates"].endswith(
        "reproject the layer from EPSG:4326 to EPSG:27700 and export it again"
    )


def test_without_a_delivered_file_the_finding_starts_with_the_problem() -> None:
    report = QcReport()
    check_geometries("layer", ["a"], np.array([bowtie(X0)], dtype=object), report)
    assert report.findings[0].detail.startswith("Self-intersection[600050 300050]: ")
