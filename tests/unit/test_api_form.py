"""The upload form offers each output type, labelled, and answers with the one chosen."""

from __future__ import annotations

import json
import re

import falcon.testing
import pytest
from test_api_app import KEY, client, site_body

from nrf.adapters.outputs import levy_csv
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.form import form_page
from nrf.entrypoints.api.form_outputs import OUTPUTS, chosen_output, download_name
from nrf.entrypoints.api.problems import ApiProblem
from support.api_server import multipart


def post_form(fields: dict[str, str], accept: str = "text/html") -> falcon.testing.Result:
    body, content_type = multipart(
        {"boundary": ("Hall's site.geojson", site_body().encode())}, {"api_key": KEY, **fields}
    )
    return client().simulate_post(
        "/", body=body, headers={"Content-Type": content_type, "Accept": accept}
    )


def test_the_form_offers_each_output_as_a_labelled_radio_in_a_fieldset() -> None:
    page = form_page(ApiKeys([KEY]))
    radios = re.findall(r'<input type="radio" id="([^"]+)" name="output" value="([^"]+)"', page)
    assert [value for _, value in radios] == ["html", "csv", "json", "geojson"]
    for radio_id, _ in radios:
        assert f'<label for="{radio_id}">' in page  # each button has its own label
    assert re.search(r"<fieldset><legend>[^<]+</legend>", page)  # the group is named
    assert 'value="html" checked' in page  # the report unless another is chosen
    # The reference says, where it is typed, that it names one site only.
    assert '<input id="id" name="id" aria-describedby="id-hint">' in page
    hint = re.search(r'<p id="id-hint" class="hint">([^<]+)</p>', page)
    assert hint and "one site" in hint.group(1) and "several" in hint.group(1)


@pytest.mark.parametrize(
    ("output", "media", "suffix"),
    [
        ("csv", "text/csv; charset=utf-8", ".levy.csv"),
        ("json", "application/json", ".json"),
        ("geojson", "application/geo+json", ".geojson"),
    ],
)
def test_a_chosen_output_is_a_download_named_after_the_upload(
    output: str, media: str, suffix: str
) -> None:
    answer = post_form({"output": output})
    assert answer.status_code == 200, answer.text[:300]
    assert answer.headers["content-type"] == media
    # "Hall's site" keeps its plain characters; the apostrophe and space become "_".
    expected = f'attachment; filename="Hall_s_site{suffix}"'
    assert answer.headers["content-disposition"] == expected
    if output == "csv":
        header, row = answer.text.lstrip("\ufeff").splitlines()[:2]
        assert header.split(",") == list(levy_csv.COLUMNS) and row.startswith("1,s,")
    else:
        doc = json.loads(answer.text)
        sites = doc["sites"] if output == "json" else doc["features"]
        assert len(sites) == 1


def test_no_choice_is_the_report_page() -> None:
    answer = post_form({})
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert "content-disposition" not in answer.headers
    assert 'id="site-boundary"' in answer.text


def test_an_unknown_output_is_refused_before_the_boundary_is_read() -> None:
    answer = post_form({"output": "pdf"}, accept="application/problem+json")
    assert (answer.status_code, answer.json["code"]) == (400, "bad_request")
    assert "html, csv, json, geojson" in answer.json["detail"]
    with pytest.raises(ApiProblem):
        chosen_output("PDF ")
    assert chosen_output(" CSV ") is OUTPUTS[1] and chosen_output(None) is OUTPUTS[0]


def test_download_names_keep_only_plain_characters() -> None:
    assert download_name('../a b".zip', OUTPUTS[1]) == "a_b_.levy.csv"
    assert download_name(None, OUTPUTS[2]) == "quote.json"
