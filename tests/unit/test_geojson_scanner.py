"""The GeoJSON scanner gives exactly json.loads's values, whatever the chunk size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nrf.adapters.site_boundaries import geojson_scanner
from nrf.adapters.site_boundaries.boundary_geojson import structure_counts
from nrf.domain.errors import InvalidInput

# Members after the features (crs last), nested arrays, escapes, non-ASCII text, numbers
# of several spellings (one ends a chunk at size 7), and an empty object.
DOCUMENT = (
    '{"type": "FeatureCollection", "name": "caf\\u00e9 \\"quoted\\"",\n'
    ' "features": [\n'
    '  {"type": "Feature", "properties": {"id": "A-1", "n": 12345, "f": -1.5e-3, "t": true,'
    ' "z": null, "s": "Richardson\u2019s"}, "geometry": {"type": "Polygon",'
    ' "coordinates": [[[0, 0], [1.25, 0], [1.25, 1], [0, 0]]]}},\n'
    "  {},\n"
    '  {"type": "Feature", "properties": {"id": 7}, "geometry": null}\n'
    " ],\n"
    ' "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}, "n": 10}'
)


def write(tmp_path: Path, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / "sites.geojson"
    path.write_text(text, encoding=encoding)
    return path


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_every_item_and_member_is_what_json_loads_gives(tmp_path: Path, chunk: int) -> None:
    path = write(tmp_path, DOCUMENT)
    expected = json.loads(DOCUMENT)
    seen: list[object] = []
    members = geojson_scanner.walk(path, seen.append, chunk=chunk)
    assert seen == expected["features"]
    assert list(geojson_scanner.items(path, chunk=chunk)) == expected["features"]
    assert members == {**expected, "features": []}
    # a number that ends a chunk is read whole: "n": 10 is the document's last value
    assert members["n"] == 10


def test_a_utf16_file_with_its_bom_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, "\ufeff" + DOCUMENT, encoding="utf-16-le")
    assert list(geojson_scanner.items(path, chunk=5)) == json.loads(DOCUMENT)["features"]


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "FeatureCollection", "features": [{"a": 1}, {"b": 2]}',  # bad item
        '{"type": "FeatureCollection", "features": [{"a": 1}',  # cut short
        '{"type": "FeatureCollection"} trailing',  # text after the document
        '[{"type": "Feature"}]',  # not an object
        '{"type" "FeatureCollection"}',  # no colon
    ],
)
def test_text_that_is_not_one_json_object_is_unreadable(tmp_path: Path, text: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        geojson_scanner.walk(write(tmp_path, text), lambda _: None, chunk=4)
    assert raised.value.problems[0].code == "unreadable_file"


def test_marks_are_counted_as_the_budget_counts_them() -> None:
    # [ { , : counted; ] } not: '{"a": [1, 2]}' has one {, one :, one [, one ,
    text = '{"a": [1, 2]}'
    assert structure_counts(text) == structure_counts(text.encode()) == (4, 1)  # and 1 member
