"""`POST /check-boundary` under real `nrf serve`: Defra's answer, codes and statuses over HTTP.

The bundle (``support.defra_check_bundle``) has the Norfolk EDP (id 1) over the Wensum and the
northern Broads, a "Test Yare EDP" (id 2) over the southern Broads, and excluded areas without
names. Each successful answer must pass Defra's own schemas as transcribed from nrf-library
1.9.0 (``support.boundary_check_schema``); each failure must carry a code Defra's list knows.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from typing import Any

import pyproj
import pytest

from nrf.bundles.synthetic_norfolk import NORFOLK_EDP
from support.api_inputs import SMALL_SHP, collection, feature, square
from support.api_server import Answer, Server, multipart, running_server, serve_env
from support.boundary_check_schema import check_errors, failure_errors
from support.defra_check_bundle import YARE_EDP, write_defra_check_bundle

ROUTE = "/check-boundary"
MAX_FILE_BYTES = 60_000
WENSUM = {"label": "River Wensum SAC", "catchmentOverlapPercentage": 100.0, "catchmentId": "1"}
KEYS = [
    "boundaryGeometryOriginal",
    "boundaryGeometryWgs84",
    "intersectingEdps",
    "intersectingExcludedAreas",
    "boundaryMetadata",
    "error",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("defra-check")
    bundle = write_defra_check_bundle(folder / "bundle.gpkg")
    env = serve_env(
        folder / "results",
        NRF_REFERENCE_DATA=str(bundle),
        NRF_MAX_FILE_BYTES=str(MAX_FILE_BYTES),
    )
    with running_server(env, folder / "serve.log") as running:
        yield running


def upload(
    server: Server, name: str, data: bytes, key: str | None = "default", **fields: str
) -> Answer:
    body, content_type = multipart({"geometry_file": (name, data)}, fields)
    if key == "default":
        return server.post(ROUTE, body, content_type)
    return server.post(ROUTE, body, content_type, key=key)


def answered(answer: Answer, status: int) -> dict[str, Any]:
    assert (answer.status, answer.content_type) == (status, "application/json"), answer.body
    doc: dict[str, Any] = answer.json()
    assert list(doc) == KEYS  # Defra's six keys, in its order, on every status
    return doc


def wgs84(x: float, y: float) -> tuple[float, float]:
    lon, lat = pyproj.Transformer.from_crs(27700, 4326, always_xy=True).transform(x, y)
    return lon, lat


def test_a_plain_site_in_one_edp_and_catchment(server: Server) -> None:
    ring = square(582_700.0, 328_100.0, 100.0)
    doc = answered(upload(server, "site.geojson", collection(feature(ring))), 200)
    assert check_errors(doc) == []
    assert doc["error"] is None
    original = doc["boundaryGeometryOriginal"]
    assert original["type"] == "Polygon" and original["coordinates"] == [ring]
    assert original["crs"] == {
        "type": "name",
        "properties": {"name": "urn:ogc:def:crs:EPSG::27700"},
    }
    # 100 m x 100 m = 10,000 m2 = 1.0000 ha, all of it in the Norfolk EDP and the Wensum.
    assert doc["intersectingEdps"] == [
        {
            "label": NORFOLK_EDP,
            "overlap_area_ha": 1.0,
            "overlap_area_sqm": 10000.0,
            "overlap_percentage": 100.0,
            "catchments": [WENSUM],
        }
    ]
    assert doc["intersectingExcludedAreas"] == []
    meta = doc["boundaryMetadata"]
    # 10,000 / 4,046.856 = 2.47105 acres; perimeter 400 m = 0.4 km, / 1,609.344 = 0.24855 mi.
    assert meta["area"] == {"hectares": 1.0, "acres": 2.4711}
    assert meta["perimeter"] == {"kilometres": 0.4, "miles": 0.2485}
    # Bounds: the WGS 84 box round the four corners, projected here with pyproj itself.
    corners = [wgs84(x, y) for x, y in ring[:4]]
    west, east = min(c[0] for c in corners), max(c[0] for c in corners)
    south, north = min(c[1] for c in corners), max(c[1] for c in corners)
    assert meta["bounds"]["bottomLeft"] == [round(west, 6), round(south, 6)]
    assert meta["bounds"]["topRight"] == [round(east, 6), round(north, 6)]
    assert meta["centre"] == [round((west + east) / 2, 6), round((south + north) / 2, 6)]
    assert doc["boundaryGeometryWgs84"]["type"] == "Polygon"


def test_a_site_across_two_edps_lists_both_with_the_catchments_under_each(server: Server) -> None:
    # 200 m x 200 m = 40,000 m2 across y = 300,000: 20,000 m2 (2.0 ha, 50 %) north in the
    # Norfolk EDP and the Bure, Ant and Thurne; 20,000 m2 south in the Yare EDP and the Yare.
    ring = square(639_900.0, 299_900.0, 200.0)
    doc = answered(upload(server, "site.json", collection(feature(ring))), 200)
    assert check_errors(doc) == []
    catchments = [  # the boundary's, under every EDP: OIDs 2 and 3 in the design
        {
            "label": "Bure, Ant and Thurne (made up)",
            "catchmentOverlapPercentage": 50.0,
            "catchmentId": "2",
        },
        {"label": "Yare (made up)", "catchmentOverlapPercentage": 50.0, "catchmentId": "3"},
    ]
    half = {"overlap_area_ha": 2.0, "overlap_area_sqm": 20000.0, "overlap_percentage": 50.0}
    assert doc["intersectingEdps"] == [
        {"label": NORFOLK_EDP, **half, "catchments": catchments},
        {"label": YARE_EDP, **half, "catchments": catchments},
    ]


def test_an_excluded_area_without_a_name_is_listed_as_unnamed(server: Server) -> None:
    # x 600,300-600,600 meets the unnamed area, the one named by spaces and " Fen SSSI ":
    # two blank names are one "Unnamed exclusion area"; names stripped and sorted.
    ring = [[600_300.0, 320_100.0], [600_600.0, 320_100.0], [600_600.0, 320_200.0]]
    ring += [[600_300.0, 320_200.0], [600_300.0, 320_100.0]]
    doc = answered(upload(server, "site.geojson", collection(feature(ring))), 200)
    assert check_errors(doc) == []
    assert doc["error"] is None  # excluded is still a check that worked (Defra: 200)
    assert doc["intersectingExcludedAreas"] == ["Fen SSSI", "Unnamed exclusion area"]
    # 300 m x 100 m = 30,000 m2 = 3.0 ha, all in the Norfolk EDP and the Wensum.
    [edp] = doc["intersectingEdps"]
    assert (edp["label"], edp["overlap_area_ha"], edp["overlap_percentage"]) == (
        NORFOLK_EDP,
        3.0,
        100.0,
    )
    assert edp["catchments"] == [WENSUM]


def _refused(answer: Answer, status: int, code: str) -> dict[str, Any]:
    doc = answered(answer, status)
    assert doc["error"] == code
    assert failure_errors(doc) == []
    assert check_errors(doc), "Defra's schema admits no reply without a geometry"
    assert answer.headers.get("x-nrf-problem"), "nrf's own account rides beside Defra's code"
    return doc


def test_a_multipolygon_is_refused_but_previewed(server: Server) -> None:
    parts = [[square(582_700.0, 328_100.0, 100.0)], [square(583_000.0, 328_100.0, 100.0)]]
    body = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:27700"}},
        "features": [
            {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "MultiPolygon", "coordinates": parts},
            }
        ],
    }
    doc = _refused(
        upload(server, "two.geojson", json.dumps(body).encode()), 400, "unsupported_geometry_type"
    )
    assert doc["boundaryGeometryOriginal"] is None and doc["intersectingEdps"] == []
    [shown] = doc["boundaryGeometryWgs84"]["features"]
    assert shown["geometry"]["type"] == "MultiPolygon"
    # Two 1 ha squares: 2.0 ha, 8 x 100 m = 0.8 km of edge.
    assert doc["boundaryMetadata"]["area"]["hectares"] == 2.0
    assert doc["boundaryMetadata"]["perimeter"]["kilometres"] == 0.8


def test_a_polygon_with_a_hole_is_refused_but_previewed(server: Server) -> None:
    outer = square(582_700.0, 328_100.0, 200.0)
    hole = square(582_775.0, 328_175.0, 50.0)
    body = collection(
        {
            "type": "Feature",
            "properties": {},
            "geometry": {"type": "Polygon", "coordinates": [outer, hole]},
        }
    )
    doc = _refused(upload(server, "holed.geojson", body), 400, "geometry_has_holes")
    [shown] = doc["boundaryGeometryWgs84"]["features"]
    assert len(shown["geometry"]["coordinates"]) == 2  # the ring and its hole, as sent
    # 40,000 - 2,500 m2 = 37,500 m2 = 3.75 ha.
    assert doc["boundaryMetadata"]["area"]["hectares"] == 3.75


def test_a_crs_nrf_cannot_use_is_422_unsupported_crs(server: Server) -> None:
    body = json.loads(collection(feature(square(582_700.0, 328_100.0, 100.0))))
    body["crs"]["properties"]["name"] = "EPSG:3857"
    _refused(upload(server, "site.geojson", json.dumps(body).encode()), 422, "unsupported_crs")


def test_a_zipped_shapefile_without_its_prj_is_422_missing_crs(server: Server) -> None:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for suffix in (".shp", ".shx", ".dbf"):  # no .prj
            archive.write(SMALL_SHP.with_suffix(suffix), SMALL_SHP.with_suffix(suffix).name)
    answer = upload(server, "site.zip", data.getvalue(), boundary_filename=SMALL_SHP.name)
    _refused(answer, 422, "missing_crs")


def test_other_file_types_and_a_missing_zip_member_are_400(server: Server) -> None:
    _refused(upload(server, "site.gpkg", b"not read"), 400, "unsupported_file_type")
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for suffix in (".shp", ".shx", ".dbf", ".prj"):
            archive.write(SMALL_SHP.with_suffix(suffix), SMALL_SHP.with_suffix(suffix).name)
    answer = upload(server, "site.zip", data.getvalue(), boundary_filename="other.shp")
    _refused(answer, 400, "boundary_file_not_found_in_zip")


def test_a_file_over_the_limit_is_413_file_size_too_large(server: Server) -> None:
    # Refused by the server as the body arrives, still in Defra's shape for this route.
    doc = answered(upload(server, "big.geojson", b" " * (MAX_FILE_BYTES + 1)), 413)
    assert doc["error"] == "file_size_too_large" and failure_errors(doc) == []


def test_the_route_wants_the_api_key(server: Server) -> None:
    answer = upload(server, "site.geojson", b"{}", key=None)
    assert answer.status == 401
