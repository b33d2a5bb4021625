"""Result files: the flat GeoJSON for GIS, the streamed JSON, and refused writes."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from nrf.adapters.outputs import flat_geojson, json_stream
from nrf.adapters.outputs.output_names import OutputNotWritable
from nrf.adapters.outputs.result_files import geojson_document, geojson_text, render, write_all
from nrf.domain.serialization import unstructure
from support.runs import DEVELOPMENTS, RUN


def test_the_streamed_text_is_the_document() -> None:
    seen: list[tuple[int, int]] = []
    text = "".join(geojson_text(RUN, DEVELOPMENTS, lambda d, t: seen.append((d, t))))
    assert text == json.dumps(geojson_document(RUN, DEVELOPMENTS)) + "\n"
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_every_feature_is_a_multipolygon_with_the_same_flat_keys() -> None:
    doc = geojson_document(RUN, DEVELOPMENTS)
    assert doc["crs"]["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
    features = doc["features"]
    assert [f["properties"]["rlb_id"] for f in features] == [1, 2, 3, 4]
    assert {f["geometry"]["type"] for f in features} == {"MultiPolygon"}
    assert len(features[2]["geometry"]["coordinates"]) == 2  # site 3 keeps its two parts
    keys = {tuple(f["properties"]) for f in features}
    assert len(keys) == 1
    for feature in features:
        assert not any(isinstance(v, dict | list) for v in feature["properties"].values())


def test_money_is_a_number_and_out_of_scope_figures_are_null() -> None:
    by_id = {
        f["properties"]["id"]: f["properties"]
        for f in geojson_document(RUN, DEVELOPMENTS)["features"]
    }
    # support/runs.py: site 2's quote is 100.00, less 10.00 + 5.00 + 2.50 = 82.50 mitigation.
    assert by_id["S2"]["levy_gbp"] == 100.0 and by_id["S2"]["mitigation_gbp"] == 82.5
    assert by_id["S2"]["edp_ids"] == "EDP-W; EDP-B"
    # 0.1 + 0.72 is 0.8200000000000001 in binary; the attribute table shows 0.82.
    noisy = attrs.evolve(RUN.sites[0], n_total=0.1 + 0.72)
    assert json.dumps(flat_geojson.site_properties(noisy, False)["n_total"]) == "0.82"
    assert by_id["S3"]["status"] == "out_of_scope" and by_id["S3"]["levy_gbp"] is None
    assert by_id["S3"]["reason_code"] == "no_dwellings"


def test_render_streams_the_geojson_and_builds_the_csv_trio(tmp_path: Path) -> None:
    files = render(tmp_path / "r.geojson", RUN, DEVELOPMENTS)
    assert not isinstance(files[tmp_path / "r.geojson"], str)
    trio = render(tmp_path / "r.csv", RUN, DEVELOPMENTS)
    assert [p.name for p in trio] == ["r.csv", "r.levy.csv", "r.provenance.json"]


class Seen:
    """A progress callback that records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, done: int, total: int) -> None:
        self.calls.append((done, total))


def test_the_streamed_results_json_is_the_document() -> None:
    notice = "SYNTHETIC: not real"
    for run, count in ((RUN, 4), (attrs.evolve(RUN, out_of_scope=()), 3)):  # an empty list too
        seen = Seen()
        text = "".join(json_stream.result_text(run, notice, seen))
        expected = {"notice": notice, **unstructure(run)}
        assert text == json.dumps(expected, indent=2) + "\n"
        assert seen.calls[-1] == (count, count)  # 3 sites, and the one out of scope
    plain = "".join(json_stream.result_text(RUN, None))
    assert json.loads(plain) == unstructure(RUN)


def test_a_refused_write_names_the_file_and_the_reason(tmp_path: Path) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("a file where a folder is needed")
    with pytest.raises(OutputNotWritable) as caught:
        write_all({blocker / "r.csv": "a,b\n"})
    assert caught.value.code == "cannot_write_output"
    assert "is a file, not a folder" in caught.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
