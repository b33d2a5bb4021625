"""Result files: the flat GeoJSON for GIS, the streamed JSON, and refused writes."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from nrf.adapters.outputs import flat_geojson, json_stream
from nrf.adapters.outputs.output_names import OutputNotWritable
from nrf.adapters.outputs.result_files import files_for, geojson_document, geojson_text, write_all
from nrf.domain.serialization import unstructure
from support.runs import DEVELOPMENTS, RUN


def test_the_streamed_text_is_the_document() -> None:
    seen: list[tuple[int, int]] = []
    text = "".join(geojson_text(RUN, DEVELOPMENTS, lambda d, t: seen.append((d, t))))
    assert text == json.dumps(geojson_document(RUN, DEVELOPMENTS)) + "\n"
    assert seen == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_every_feature_is_a_multipolygon_with_the_same_flat_keys() -> None:
    doc = geojson_document(RUN, DEVELOPMENTS)
    assert "crs" not in doc  # RFC 7946: WGS 84, said by the format itself
    bng = geojson_document(RUN, DEVELOPMENTS, bng=True)
    assert bng["crs"]["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
    assert bng["features"][0]["properties"] == doc["features"][0]["properties"]
    features = doc["features"]
    assert [f["properties"]["rlb_id"] for f in features] == [1, 2, 3, 4, 5]
    assert {f["geometry"]["type"] for f in features} == {"MultiPolygon"}
    assert len(features[2]["geometry"]["coordinates"]) == 2  # site 3 keeps its two parts
    keys = {tuple(f["properties"]) for f in features}
    assert len(keys) == 1
    for feature in features:
        assert not any(isinstance(v, dict | list) for v in feature["properties"].values())


def test_money_is_a_number_a_refusal_is_its_code_and_out_of_scope_figures_are_null() -> None:
    doc = geojson_document(RUN, DEVELOPMENTS)
    by_id = {f["properties"]["id"]: f["properties"] for f in doc["features"]}
    # support/runs.py: site 1 is 10 units x £2,675.00 = £26,750.00, VAT £5,350.00.
    mill = by_id["S1"]
    assert (mill["levy_status"], mill["edp_id"], mill["edp_name"]) == ("quoted", 1, "Norfolk")
    assert (mill["levy_excl_vat_gbp"], mill["vat_gbp"], mill["levy_incl_vat_gbp"]) == (
        26750.0,
        5350.0,
        32100.0,
    )
    assert mill["quote_date"] == "2026-11-26" and mill["charge_per_unit_gbp"] == 2675.0
    excluded = by_id["S2"]
    assert excluded["levy_status"] == "refused" and excluded["levy_refusal_code"] == "excluded_area"
    assert excluded["levy_excl_vat_gbp"] is None  # never a 0 that reads like a quote
    # The batch: 26,750.00 + 8,386.14 = 35,136.14 excluding VAT; 2 quoted, 2 refused.
    assert doc["levy"] == {
        "amount_excluding_vat": "35136.14",
        "vat": "7027.23",
        "amount_including_vat": "42163.37",
        "quoted": 2,
        "refused": 2,
    }
    # 0.1 + 0.72 is 0.8200000000000001 in binary; the attribute table shows 0.82.
    noisy = attrs.evolve(RUN.sites[0], n_total=0.1 + 0.72)
    assert json.dumps(flat_geojson.site_properties(noisy, False)["n_total"]) == "0.82"
    assert by_id["S3"]["status"] == "out_of_scope" and by_id["S3"]["levy_excl_vat_gbp"] is None
    assert by_id["S3"]["reason_code"] == "no_dwellings"


def test_render_streams_the_geojson_and_builds_the_csv_trio(tmp_path: Path) -> None:
    files = files_for(tmp_path / "r.geojson", RUN, DEVELOPMENTS)
    assert not isinstance(files[tmp_path / "r.geojson"], str)
    trio = files_for(tmp_path / "r.csv", RUN, DEVELOPMENTS)
    assert [p.name for p in trio] == ["r.csv", "r.levy.csv", "r.provenance.json"]


class Seen:
    """A progress callback that records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, done: int, total: int) -> None:
        self.calls.append((done, total))


def test_the_streamed_results_json_is_the_document() -> None:
    notice = "SYNTHETIC: not real"
    for run, count in ((RUN, 5), (attrs.evolve(RUN, out_of_scope=()), 4)):  # an empty list too
        seen = Seen()
        text = "".join(json_stream.result_text(run, notice, seen))
        expected = {"notice": notice, **unstructure(run)}
        assert text == json.dumps(expected, indent=2) + "\n"
        assert seen.calls[-1] == (count, count)  # 4 sites, and the one out of scope
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
