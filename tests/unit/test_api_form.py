"""The upload form offers each output type, labelled, and answers with the one chosen."""

from __future__ import annotations

import base64
import json
import re

import falcon.testing
import pytest
from test_api_app import KEY, client, site_body

from nrf.adapters.outputs import levy_csv
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.form import form_page
from nrf.entrypoints.api.form_outputs import OUTPUTS, FormOutput, chosen_output, download_name
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
    assert [value for _, value in radios] == ["html", "csv", "json", "geojson", "bng-geojson"]
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
    assert "html, csv, json, geojson, bng-geojson" in answer.json["detail"]
    with pytest.raises(ApiProblem):
        chosen_output("PDF ")
    assert chosen_output(" CSV ") is OUTPUTS[1] and chosen_output(None) is OUTPUTS[0]


def test_download_names_keep_only_plain_characters() -> None:
    assert download_name('../a b".zip', OUTPUTS[1]) == "a_b_.levy.csv"
    assert download_name(None, OUTPUTS[2]) == "quote.json"


LINK = re.compile(r'<a href="data:([^;,"]+(?:;charset=utf-8)?);base64,([^"]+)" download="([^"]+)">')
# The moment each answer was made: the only part of two answers of one quote that differs.
MADE_AT = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?\+00:00|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
)


def linked_files(page: str) -> dict[str, tuple[str, bytes]]:
    """download name -> (media type, bytes) of every data: link in the page."""
    return {name: (media, base64.b64decode(data)) for media, data, name in LINK.findall(page)}


def test_the_report_links_the_same_quote_as_json_levy_table_and_geojson() -> None:
    page = post_form({"name": "Linked"}).text
    files = linked_files(page)
    # One link per other output, named after the upload as the chosen downloads are.
    assert {name: media for name, (media, _) in files.items()} == {
        "Hall_s_site.levy.csv": "text/csv;charset=utf-8",
        "Hall_s_site.json": "application/json",
        "Hall_s_site.geojson": "application/geo+json",
        "Hall_s_site.bng.geojson": "application/geo+json",
    }
    # Each holds what the form answers when that output is chosen, but for the moment made.
    for output, name in (("csv", ".levy.csv"), ("json", ".json"), ("geojson", ".geojson")):
        chosen = post_form({"name": "Linked", "output": output}).content
        linked = files[f"Hall_s_site{name}"][1]
        assert MADE_AT.sub("-", linked.decode()) == MADE_AT.sub("-", chosen.decode()), output
    # ...and they are of the very quote on the page: the page's own stamp is in the files.
    made = re.search(r'data-figure="made-at">([^<]+)<', page)
    assert made is not None
    assert made.group(1) in files["Hall_s_site.levy.csv"][1].decode()
    assert json.loads(files["Hall_s_site.json"][1])["sites"][0]["site"]["name"] == "Linked"


def test_the_links_are_not_printed_and_are_under_a_heading() -> None:
    page = post_form({}).text
    section = re.search(
        r'<section class="downloads" aria-labelledby="downloads">(.*?)</section>', page
    )
    assert section is not None and '<h2 id="downloads">' in section.group(1)
    assert ".downloads{display:none}}" in page  # inside the @media print block, at its end


def test_a_format_too_large_for_the_page_is_not_inlined() -> None:
    from nrf.entrypoints.api.form_downloads import LINK_LIMIT, download_links

    def render(output: FormOutput) -> tuple[str, bytes]:
        size = LINK_LIMIT + 1 if output.media_type == "application/geo+json" else 10
        return output.media_type, b"x" * size

    section = download_links("site.zip", render)
    assert set(linked_files(section)) == {"site.levy.csv", "site.json"}
    assert "too large to put in this page" in section
    # 8 MiB + 1 byte = 8,388,609 bytes = 8,192.0 KB, shown to the kilobyte.
    assert "8,192 KB" in section
