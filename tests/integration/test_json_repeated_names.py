"""A JSON object naming a member twice is refused on every way in, never read as its last.

``{"dwellings": 10, "dwellings": 20}`` was priced as 20 homes: Python (and JavaScript) keep
the last value, other readers the first, so a front end or a backend that checked the site
as 10 homes would have seen another quote than nrf made. The same for ``id``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.adapters.site_boundaries.boundary_stream import open_boundary_file
from nrf.domain.errors import InvalidInput
from support.api_in_process import anonymous_client
from support.api_inputs import SMALL_JSON

SMALL = json.loads(SMALL_JSON.read_bytes())


def with_properties(raw: str) -> bytes:
    """SMALL_JSON's first site with ``raw`` as its properties object, written as given."""
    document = {**SMALL, "features": [{**SMALL["features"][0], "properties": "HERE"}]}
    return json.dumps(document).replace('"HERE"', raw).encode()


TWICE = with_properties('{"id": "a", "dwellings": 10, "dwellings": 20}')
ONCE = with_properties('{"id": "a", "dwellings": 20}')


def codes(read: object) -> list[str]:
    with pytest.raises(InvalidInput) as caught:
        read()  # type: ignore[operator]
    assert "'dwellings' is given twice" in caught.value.problems[0].message
    return caught.value.codes


def test_a_file_is_refused_whole_and_streamed(tmp_path: Path) -> None:
    path = tmp_path / "sites.geojson"
    path.write_bytes(TWICE)
    assert codes(lambda: read_boundary_bytes(TWICE, "sites.geojson")) == ["unreadable_file"]

    def streamed() -> None:
        with open_boundary_file(path) as source:
            list(source.features())

    assert codes(streamed) == ["unreadable_file"]
    assert len(read_boundary_bytes(ONCE, "sites.geojson")) == 1  # the control


def test_the_api_refuses_the_body() -> None:
    client = anonymous_client()
    headers = {"Content-Type": "application/geo+json"}
    answer = client.simulate_post("/v1/quotes", body=TWICE, headers=headers)
    assert (answer.status_code, answer.json["code"]) == (400, "not_json")  # before: 200, 20 homes
    answer = client.simulate_post("/v1/quotes", body=ONCE, headers=headers)
    assert answer.status_code == 200
