"""The form offers the British National Grid GeoJSON the API gives for ``?crs=EPSG:27700``.

A plain form cannot add a query parameter, so without its own choice a person at the form
could not have the eastings and northings the CLI (``NAME.bng.geojson``) and the API give.
"""

from __future__ import annotations

import json
import re

from test_api_app import HEADERS, KEY, client, site_body
from test_api_form import MADE_AT, linked_files, post_form

from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.form import form_page

BNG = "urn:ogc:def:crs:EPSG::27700"


def test_the_form_offers_the_bng_geojson_as_a_labelled_choice() -> None:
    page = form_page(ApiKeys([KEY]))
    radio = re.search(r'<input type="radio" id="([^"]+)" name="output" value="bng-geojson"', page)
    assert radio is not None
    label = re.search(rf'<label for="{radio.group(1)}">([^<]+)</label>', page)
    assert label is not None and "British National Grid" in label.group(1)


def test_choosing_it_downloads_the_apis_crs_27700_answer() -> None:
    answer = post_form({"output": "bng-geojson"})
    assert answer.status_code == 200, answer.text[:300]
    assert answer.headers["content-type"] == "application/geo+json"
    assert answer.headers["content-disposition"] == 'attachment; filename="Hall_s_site.bng.geojson"'
    doc = json.loads(answer.text)
    assert doc["crs"]["properties"]["name"] == BNG
    x, y = doc["features"][0]["geometry"]["coordinates"][0][0][0]
    assert x > 100_000 and y > 100_000  # metres, not degrees
    api = client().simulate_post(
        "/v1/quotes",
        params={"crs": "EPSG:27700"},
        body=site_body(),
        headers={**HEADERS, "Accept": "application/geo+json"},
    )
    assert api.status_code == 200
    # The same document but for the stamp (when, and from what: the upload's name or the body).
    api_doc, form_doc = json.loads(api.text), json.loads(answer.text)
    api_doc.pop("stamp"), form_doc.pop("stamp")
    assert MADE_AT.sub("-", json.dumps(api_doc)) == MADE_AT.sub("-", json.dumps(form_doc))


def test_the_report_links_the_bng_copy_too() -> None:
    files = linked_files(post_form({}).text)
    media, body = files["Hall_s_site.bng.geojson"]
    assert media == "application/geo+json"
    assert json.loads(body)["crs"]["properties"]["name"] == BNG
    assert "crs" not in json.loads(files["Hall_s_site.geojson"][1])
