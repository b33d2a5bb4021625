"""The upload form for a person: a quote date, the synthetic-data notice, a <main> landmark;
a problem page headed by what went wrong, each problem once with its site, and the form again
with what was entered."""

from __future__ import annotations

import json
import re

import falcon.testing
from shapely.geometry import box

from fakes import FakeClock
from nrf.domain.model import BundleInfo
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from nrf.entrypoints.roots.api import ApiRoot
from support.api_server import multipart
from support.reference import QUOTE_MOMENT, STRIP_ORIGIN
from support.reference import two_catchment_strip as repo
from support.wiring import wired

KEY = "form-key-0123456789"
X0, Y0 = STRIP_ORIGIN
SYNTHETIC = BundleInfo(
    name="nrf-synthetic-norfolk", version="1", created="", description="", sha256="0" * 64
)


def client(bundle: BundleInfo | None = None) -> falcon.testing.TestClient:
    data = repo()
    container = wired(ApiRoot, boundary_data=data, site_map=map, clock=FakeClock(QUOTE_MOMENT))
    services = ApiServices(
        quote=container.get_quote(),
        check=container.check_boundary(),
        reference_for=data.reference_for,
        store=None,
        files=None,
        limits=container.limits(),
        bundle=bundle,
    )
    return falcon.testing.TestClient(create_app(services, ApiKeys([KEY])))


def boundary(*features: tuple[str, object, list[list[float]]]) -> bytes:
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    return json.dumps(
        {
            "type": "FeatureCollection",
            "crs": crs,
            "features": [
                {
                    "type": "Feature",
                    "properties": {"id": site, "dwellings": dwellings},
                    "geometry": {"type": "Polygon", "coordinates": [ring]},
                }
                for site, dwellings, ring in features
            ],
        }
    ).encode()


def square(x: float) -> list[list[float]]:
    return [list(p) for p in box(X0 + x, Y0 + 100, X0 + x + 100, Y0 + 200).exterior.coords]


def post(fields: dict[str, str], data: bytes, bundle: BundleInfo | None = None) -> str:
    body, content_type = multipart({"boundary": ("sites.geojson", data)}, fields)
    answer = client(bundle).simulate_post(
        "/", body=body, headers={"Content-Type": content_type, "Accept": "text/html"}
    )
    return answer.text


def test_the_form_has_a_main_landmark_a_quote_date_and_says_when_data_is_synthetic() -> None:
    page = client(SYNTHETIC).simulate_get("/").text
    assert re.search(r"<main>.*<form .*</form>.*</main>", page, re.DOTALL)
    assert '<input id="quoteDate" name="quoteDate" type="date">' in page
    assert '<label for="quoteDate">' in page
    assert "SYNTHETIC DEMONSTRATION DATA" in page
    assert "SYNTHETIC" not in client(None).simulate_get("/").text


def test_the_forms_quote_date_prices_the_levy_on_that_day() -> None:
    data = boundary(("S-1", 10, square(100)))
    fields = {"api_key": KEY, "quoteDate": "2027-01-15", "output": "json"}
    body, content_type = multipart({"boundary": ("sites.geojson", data)}, fields)
    answer = client().simulate_post("/", body=body, headers={"Content-Type": content_type})
    [site] = answer.json["sites"]
    assert site["pricing"]["quote_date"] == "2027-01-15"


def test_a_wrong_key_is_not_called_a_boundary_problem() -> None:
    page = post({"api_key": "not-the-key-at-all", "name": "Mill Lane"}, b"{}")
    assert "<h1>The API key was not accepted</h1>" in page
    assert "cannot be assessed" not in page


def test_each_problem_is_said_once_with_its_site_and_the_form_keeps_what_was_entered() -> None:
    # Two sites, each without a usable dwellings value: two problems, each named by its site.
    data = boundary(("PL/1", "many", square(100)), ("PL/2", -3, square(300)))
    fields = {"api_key": KEY, "name": "Mill Lane", "reference": "NRL-9", "quoteDate": "2027-01-15"}
    page = post(fields, data)
    assert "<h1>The boundary cannot be assessed</h1>" in page
    items = re.findall(r"<li>(.*?)</li>", page)
    assert len(items) == 2
    assert "(feature 1, site PL/1)" in items[0] and "(feature 2, site PL/2)" in items[1]
    for item in items:  # each once: the list, not the detail again above it
        assert page.count(item) == 1
    # The form again, below, filled in with what was typed (the key and the file are not).
    again = page[page.index('<h2 id="again">') :]
    assert '<a href="#again">Back to the form</a>' in page
    assert 'name="name" value="Mill Lane"' in again
    assert 'name="reference" value="NRL-9"' in again
    assert 'name="quoteDate" type="date" value="2027-01-15"' in again
    assert KEY not in page
    assert "<main>" in page


def test_the_api_problems_carry_the_site_id() -> None:
    data = boundary(("PL/1", "many", square(100)))
    answer = client().simulate_post(
        "/v1/quotes",
        body=data,
        headers={"Content-Type": "application/geo+json", "x-api-key": KEY},
    )
    assert answer.status_code == 422
    [problem] = answer.json["problems"]
    assert (problem["feature"], problem["site_id"]) == (1, "PL/1")


def test_the_form_again_keeps_the_answer_type_that_was_chosen() -> None:
    # Chose the levy table, sent a boundary with a problem: back at the form, still the table.
    data = boundary(("PL/1", "many", square(100)))
    page = post({"api_key": KEY, "output": "csv"}, data)
    again = page[page.index('<h2 id="again">') :]
    checked = re.findall(r'name="output" value="([^"]+)" checked', again)
    assert checked == ["csv"]
    # An answer type that is not offered is refused before the file is read (400), and the
    # form again has the report checked, as a fresh form does.
    page = post({"api_key": KEY, "output": "pdf"}, data)
    assert re.findall(r'name="output" value="([^"]+)" checked', page) == ["html"]
