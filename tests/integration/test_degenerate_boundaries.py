"""A boundary with no real area is refused (``zero_area``), never priced at 0.0 ha.

Three WGS 84 points along one latitude enclose nothing as drawn; reprojected to British
National Grid the parallel curves, so they become a sliver with a little area (0.1 degrees
long: about 4,000 m², 0.6 m wide on average), which was quoted at 0.0 ha and the full
wastewater levy through the API, a KML, `nrf assess` and the worker. A sliver drawn in metres
(under a square metre, or under a centimetre wide on average) is refused the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyproj import Transformer

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import validate_features
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT
from support.api_in_process import anonymous_client
from support.api_inputs import collection, feature
from support.api_server import multipart
from support.reference import STRIP_ORIGIN
from support.s3_input import OneObject, uri_job

LON, LAT = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True).transform(
    STRIP_ORIGIN[0] + 100, STRIP_ORIGIN[1] + 100
)
ALONG_A_LATITUDE = [[LON, LAT], [LON + 0.05, LAT], [LON + 0.1, LAT], [LON, LAT]]
SITE = {"id": "S1", "dwellings": 10}


def wgs84(ring: list[list[float]]) -> bytes:
    """A GeoJSON without ``crs``: WGS 84."""
    return json.dumps({"type": "FeatureCollection", "features": [feature(ring, **SITE)]}).encode()


def kml(ring: list[list[float]]) -> bytes:
    coordinates = " ".join(f"{x},{y},0" for x, y in ring)
    return (
        '<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2">'
        '<Document><Placemark><name>S1</name><ExtendedData><Data name="dwellings"><value>10'
        "</value></Data></ExtendedData><Polygon><outerBoundaryIs><LinearRing><coordinates>"
        f"{coordinates}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>"
        "</Document></kml>"
    ).encode()


def codes(data: bytes, name: str) -> list[str]:
    with pytest.raises(InvalidInput) as caught:
        validate_features(read_boundary_bytes(data, name))
    return caught.value.codes


def test_three_points_along_a_latitude_are_refused_from_geojson_and_kml() -> None:
    assert codes(wgs84(ALONG_A_LATITUDE), "sites.geojson") == ["zero_area"]
    assert codes(kml(ALONG_A_LATITUDE), "sites.kml") == ["zero_area"]
    # The control: the same ring 0.001 degrees (111 m) tall is a site.
    tall = [[LON, LAT], [LON + 0.05, LAT], [LON + 0.1, LAT + 0.001], [LON, LAT]]
    assert len(validate_features(read_boundary_bytes(wgs84(tall), "sites.geojson"))) == 1


def test_the_api_refuses_it_with_422() -> None:
    client = anonymous_client()
    answer = client.simulate_post(
        "/v1/quotes",
        body=wgs84(ALONG_A_LATITUDE),
        headers={"Content-Type": "application/geo+json"},
    )
    assert (answer.status_code, answer.json["code"]) == (422, "zero_area"), answer.text


def test_the_api_refuses_it_as_an_uploaded_kml() -> None:
    client = anonymous_client()
    body, content_type = multipart({"boundary": ("sites.kml", kml(ALONG_A_LATITUDE))}, {})
    answer = client.simulate_post("/v1/quotes", body=body, headers={"Content-Type": content_type})
    assert (answer.status_code, answer.json["code"]) == (422, "zero_area"), answer.text


def test_nrf_assess_and_the_workers_source_refuse_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sites.geojson"
    path.write_bytes(wgs84(ALONG_A_LATITUDE))
    assert main(["assess", str(path)]) == EXIT_INVALID_INPUT
    assert "zero_area" in capsys.readouterr().err
    source = S3JobBoundarySource(OneObject(path.read_bytes()), "nrf-in", "jobs")
    with pytest.raises(InvalidInput) as caught:
        validate_features(source.features(uri_job("sites.geojson")))
    assert caught.value.codes == ["zero_area"]


@pytest.mark.parametrize(
    ("ring", "refused"),
    [
        # A triangle of 1 m base and 1 m height: 0.5 m², under 1 m².
        ([[600000, 300000], [600001, 300000], [600000.5, 300001], [600000, 300000]], True),
        # 100 m long, 5 mm wide: 0.5 m², and 2 x 0.5 / 200.01 = 5 mm mean width.
        (
            [
                [600000, 300000],
                [600100, 300000],
                [600100, 300000.005],
                [600000, 300000.005],
                [600000, 300000],
            ],
            True,
        ),
        # 1,000 m long, 5 mm wide: 5 m² (over 1 m²) but 2 x 5 / 2,000.01 = 5 mm wide.
        (
            [
                [600000, 300000],
                [601000, 300000],
                [601000, 300000.005],
                [600000, 300000.005],
                [600000, 300000],
            ],
            True,
        ),
        # The control: 100 m by 1 m, 100 m² and 2 x 100 / 202 = 0.99 m wide, is a site.
        (
            [
                [600000, 300000],
                [600100, 300000],
                [600100, 300001],
                [600000, 300001],
                [600000, 300000],
            ],
            False,
        ),
    ],
)
def test_slivers_drawn_in_metres(ring: list[list[float]], refused: bool) -> None:
    data = collection(feature(ring, **SITE))
    if refused:
        assert codes(data, "sites.geojson") == ["zero_area"]
    else:
        assert len(validate_features(read_boundary_bytes(data, "sites.geojson"))) == 1
