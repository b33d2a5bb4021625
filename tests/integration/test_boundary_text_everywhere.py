"""A name JSON can carry but no answer can (a lone surrogate) is an input error, once, in the
CLI with every output, the API's HTML answer and the worker's message: never a 500, a
traceback or a retry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nrf.adapters.job_queue.job_message import parse_job_message
from nrf.domain.errors import InvalidInput
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.boundary_sites import X, Y
from support.hostile import job

# JSON's own escape for a lone surrogate: valid JSON, not encodable as UTF-8.
SURROGATE_NAME = b'"Hall\\ud800"'


def site_with_surrogate() -> bytes:
    ring = [[X, Y], [X + 100, Y], [X + 100, Y + 100], [X, Y + 100], [X, Y]]
    props = {"id": "a", "name": "@", "dwelling_category": "housing", "source": "", "dwellings": 1}
    document = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:27700"}},
        "features": [
            {
                "type": "Feature",
                "properties": props,
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        ],
    }
    return json.dumps(document).encode().replace(b'"@"', SURROGATE_NAME)


@pytest.mark.parametrize("output", ["x.csv", "x.html", None])
def test_nrf_assess_says_invalid_input_for_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str | None
) -> None:
    path = tmp_path / "sites.geojson"
    path.write_bytes(site_with_surrogate())
    args = ["assess", str(path)] + (["--output", str(tmp_path / output)] if output else [])
    assert main(args) == EXIT_INVALID_INPUT
    err = capsys.readouterr().err
    assert "invalid_text" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [path]  # nothing half-written


def test_the_form_answers_a_422_page_not_a_500() -> None:
    client = anonymous_client()
    body, content_type = multipart({"boundary": ("sites.geojson", site_with_surrogate())}, {})
    answer = client.simulate_post(
        "/", body=body, headers={"Content-Type": content_type, "Accept": "text/html"}
    )
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith("text/html")
    assert "invalid_text" in answer.text


def test_the_worker_refuses_the_message_at_once() -> None:
    message = job("surrogate-1")
    message["development"]["name"] = "@"
    body = json.dumps(message).encode().replace(b'"@"', SURROGATE_NAME)
    with pytest.raises(InvalidInput) as caught:
        parse_job_message(body)
    assert [(p.code, p.field) for p in caught.value.problems] == [("invalid_field", "name")]


def good_site() -> bytes:
    return site_with_surrogate().replace(SURROGATE_NAME, b'"Hall"')


def test_an_upload_name_of_255_characters_is_echoed_whole_in_the_answer() -> None:
    name = "s" * 247 + ".geojson"  # 247 + 8 = 255 characters, the most a part may have
    body, content_type = multipart({"boundary": (name, good_site())}, {})
    answer = anonymous_client().simulate_post(
        "/v1/quotes", body=body, headers={"Content-Type": content_type}
    )
    assert answer.status_code == 200
    assert answer.text.count(name) == 1


def test_an_upload_name_over_255_characters_is_refused_and_not_echoed() -> None:
    # Falcon's secure_filename turns "/" into "_", so the name is one part: 248 + 8 = 256.
    name = "s" * 248 + ".geojson"
    body, content_type = multipart({"boundary": (name, good_site())}, {})
    answer = anonymous_client().simulate_post(
        "/v1/quotes", body=body, headers={"Content-Type": content_type}
    )
    assert answer.status_code == 422
    assert answer.json["code"] == "unsafe_filename"
    assert "s" * 60 not in answer.text
