"""`nrf serve` gives the CLI's British National Grid GeoJSON on ``?crs=EPSG:27700``, over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import shapely
from shapely.geometry import shape

from support.api_inputs import SMALL_JSON, cli_output, unstamped
from support.api_server import Answer, Server, running_server, serve_env

GEOJSON = "application/geo+json"
BNG = "crs=EPSG:27700"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("api-bng")
    with running_server(serve_env(folder / "results"), folder / "serve.log") as running:
        yield running


def _sent() -> tuple[dict, shapely.Geometry]:
    """The small sample (British National Grid, one site) and its boundary."""
    doc = json.loads(SMALL_JSON.read_text())
    return doc, shape(doc["features"][0]["geometry"])


def _quote(server: Server, query: str = "", accept: str = GEOJSON) -> Answer:
    path = f"/v1/quotes?{query}" if query else "/v1/quotes"
    return server.post(path, SMALL_JSON.read_bytes(), GEOJSON, accept=accept)


def test_crs_27700_answers_eastings_and_northings_as_the_clis_bng_file(
    server: Server, tmp_path: Path
) -> None:
    answer = _quote(server, BNG)
    assert (answer.status, answer.content_type) == (200, GEOJSON), answer.body[:300]
    doc = answer.json()
    from_cli = cli_output(SMALL_JSON, ".bng.geojson", tmp_path)
    assert doc["crs"] == json.loads(from_cli)["crs"]
    assert doc["crs"]["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
    # The boundary in the metres it was sent in: the same polygon, its area in m².
    sent, boundary = _sent()
    [feature] = doc["features"]
    answered = shape(feature["geometry"])
    assert shapely.symmetric_difference(answered, boundary).area < 0.01
    assert answered.area == pytest.approx(sent["features"][0]["properties"]["Shape_Area"], 1e-6)
    # And byte for byte the CLI's file but for the stamp.
    body = "POST /v1/quotes body"
    assert unstamped(answer.body, body) == unstamped(from_cli, SMALL_JSON.name)


def test_without_crs_the_geojson_stays_rfc_7946(server: Server) -> None:
    answer = _quote(server)
    assert (answer.status, answer.content_type) == (200, GEOJSON)
    doc = answer.json()
    assert "crs" not in doc
    [feature] = doc["features"]
    points = shapely.get_coordinates(shape(feature["geometry"]))
    # East Rudham, Norfolk: about 0.7° E, 52.8° N, not 582,800 m E, 328,200 m N.
    assert ((points[:, 0] > 0.6) & (points[:, 0] < 0.8)).all()
    assert ((points[:, 1] > 52.7) & (points[:, 1] < 52.9)).all()


@pytest.mark.parametrize(
    ("path", "query", "accept", "words"),
    [
        ("/v1/quotes", "crs=EPSG:4326", GEOJSON, "'EPSG:4326' is not offered"),
        ("/v1/quotes", "crs=OGC:CRS84", GEOJSON, "crs=EPSG:27700 gives British National Grid"),
        ("/v1/quotes", "crs=EPSG:27700&crs=EPSG:27700", GEOJSON, "give crs once"),
        ("/v1/quotes", BNG, "application/json", "applies to a GeoJSON answer"),
        ("/v1/quotes", BNG, "text/csv", "this answer is text/csv"),
        ("/v1/boundary-checks", BNG, "application/json", "applies to a GeoJSON answer"),
    ],
)
def test_any_other_crs_or_a_crs_without_geojson_is_400_bad_crs(
    server: Server, path: str, query: str, accept: str, words: str
) -> None:
    answer = server.post(f"{path}?{query}", SMALL_JSON.read_bytes(), GEOJSON, accept=accept)
    assert (answer.status, answer.content_type) == (400, "application/problem+json")
    problem = answer.json()
    assert problem["code"] == "bad_crs"
    assert words in problem["detail"]
