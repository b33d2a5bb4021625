"""A boundary in the wrong or an unstated CRS is refused with the fix named, and a crossing
ring is located in the file's own coordinates."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import geopandas
import pytest
from shapely.geometry import box

from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.adapters.site_boundaries.boundary_geojson import features_from_geojson
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import validate_features
from nrf.entrypoints.api.wording import for_api


def refusal(doc: dict[str, Any]) -> list[Problem]:
    with pytest.raises(InvalidInput) as caught:
        validate_features(features_from_geojson(doc))
    return list(caught.value.problems)


def feature(ring: Sequence[Sequence[float]], **crs: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "type": "Feature",
        "properties": {"dwellings": 5},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }
    doc.update(crs)
    return doc


def test_a_geojson_in_metres_without_a_crs_member_is_told_to_give_crs_27700() -> None:
    ring = [[620100, 310100], [620200, 310100], [620200, 310200], [620100, 310100]]
    [problem] = refusal(feature(ring))
    assert problem.code == "coordinates_look_like_metres"
    assert "give --crs EPSG:27700" in problem.message
    # The API has no --crs: its answer names what the file itself must say instead.
    assert "--" not in for_api(problem.message)
    assert "GeoJSON crs member" in for_api(problem.message)


def test_a_shapefile_without_its_prj_is_told_to_give_crs(tmp_path: Path) -> None:
    frame = geopandas.GeoDataFrame(
        {"dwellings": [5]}, geometry=[box(620100, 310100, 620200, 310200)], crs=27700
    )
    frame.to_file(tmp_path / "sites.shp")
    (tmp_path / "sites.prj").unlink()
    with pytest.raises(InvalidInput) as caught:
        read_boundary_file(tmp_path / "sites.shp")
    [problem] = caught.value.problems
    assert problem.code == "missing_crs"
    assert "give --crs EPSG:27700" in problem.message and "--crs EPSG:4326" in problem.message


def test_latitude_and_longitude_swapped_are_recognised_and_said() -> None:
    # Norwich is about longitude 1.30, latitude 52.63; written latitude first.
    ring = [[52.63, 1.30], [52.63, 1.31], [52.64, 1.31], [52.63, 1.30]]
    [problem] = refusal(feature(ring))
    assert problem.code == "coordinates_swapped"
    assert "latitude and longitude swapped" in problem.message
    assert "x 52.63 to 52.64, y 1.3 to 1.31" in problem.message


def test_a_crossing_in_a_wgs84_file_is_located_in_degrees() -> None:
    # A bow-tie: the edge (1.00, 52.60)-(1.01, 52.61) crosses (1.01, 52.60)-(1.00, 52.61) at
    # their midpoints, (1.005, 52.605).
    ring = [[1.0, 52.6], [1.01, 52.61], [1.01, 52.6], [1.0, 52.61], [1.0, 52.6]]
    problems = refusal(feature(ring))
    crossing = [p for p in problems if p.code == "self_intersecting_geometry"]
    assert len(crossing) == 1  # said once, by the reader, not again in metres
    assert "at longitude 1.005000, latitude 52.605000 (WGS 84" in crossing[0].message


def test_a_crossing_in_a_bng_file_is_located_in_its_metres() -> None:
    # (620000, 310000)-(620100, 310100) crosses (620100, 310000)-(620000, 310100) at
    # (620050, 310050).
    ring = [[620000, 310000], [620100, 310100], [620100, 310000], [620000, 310100]]
    ring.append(ring[0])
    bng = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
    [problem] = refusal(feature(ring, crs=bng))
    assert problem.code == "self_intersecting_geometry"
    assert "at x 620050.00, y 310050.00 (British National Grid metres)" in problem.message
