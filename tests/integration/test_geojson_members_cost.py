"""A GeoJSON's object members are budgeted by what they cost once parsed, not as one mark.

The structure budget counted a member (``"k1": 0,``) as two marks, a colon and a comma, as
if it cost what half a vertex does; parsed, it costs more than a vertex (its name, its slot,
the pair the duplicate-name check sees). A 27 MB body of one site with 2,200,000 unused
properties was within the budget: read whole, 275 MB traced and 7.5 s (448 MB once object
members were checked for repeated names), and quoted.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.adapters.site_boundaries.boundary_stream import open_boundary_file
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import MIB
from support.api_in_process import anonymous_client
from support.api_inputs import SMALL_JSON

SMALL = json.loads(SMALL_JSON.read_bytes())


def one_site_with(members: int) -> bytes:
    """SMALL_JSON's first site with ``members`` unused properties besides its dwellings."""
    names = ",".join(f'"k{i}":0' for i in range(members))
    document = {**SMALL, "features": [{**SMALL["features"][0], "properties": "HERE"}]}
    properties = "{" + names + ("," if names else "") + '"dwellings":1}'
    return json.dumps(document).replace('"HERE"', properties).encode()


MANY = one_site_with(1_200_000)  # 15 MB: 2.4 million marks as counted before, under 4.5 million


def test_a_million_unused_members_are_refused_before_they_are_parsed(tmp_path: Path) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(InvalidInput) as caught:
            read_boundary_bytes(MANY, "sites.geojson")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.codes == ["geojson_too_complex"]  # before: read, 1 site
    assert peak < 2 * MIB
    path = tmp_path / "sites.geojson"
    path.write_bytes(MANY)
    with pytest.raises(InvalidInput) as caught, open_boundary_file(path) as source:
        list(source.features())
    assert caught.value.codes == ["geojson_too_complex"]


def test_the_api_refuses_the_body() -> None:
    client = anonymous_client()
    headers = {"Content-Type": "application/geo+json"}
    answer = client.simulate_post("/v1/quotes", body=MANY, headers=headers)
    assert (answer.status_code, answer.json["code"]) == (413, "geojson_too_complex")


def test_a_site_with_as_many_columns_as_a_dbf_holds_is_still_read() -> None:
    """The control: a .dbf holds at most 255 fields, and such a site is read as before."""
    assert len(read_boundary_bytes(one_site_with(254), "sites.geojson")) == 1
