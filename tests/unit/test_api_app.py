"""The API's Falcon app in process (falcon.testing), with in-memory data and recording fakes."""

from __future__ import annotations

import json

import falcon.testing
import pytest
from shapely.geometry import box

from fakes import FakeClock, FakeResultStore
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.errors import BrokenBundle, InvalidInput, Problem
from nrf.domain.jobs import JobRecord, JobStatus
from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.problems import from_error
from nrf.entrypoints.api.services import ApiServices
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.quotes import GetQuote, Quote, QuoteRequest
from support.reference import QUOTE_MOMENT, STRIP_ORIGIN
from support.reference import two_catchment_strip as repo

KEY = "unit-key-0123456789"
HEADERS = {"x-api-key": KEY, "Content-Type": "application/geo+json"}
SITE = {"id": "s", "name": "Site", "dwelling_category": "housing", "source": "", "dwellings": 10}

X0, Y0 = STRIP_ORIGIN


class StoreFiles:
    def __init__(self, store: FakeResultStore) -> None:
        self._store = store

    def read(self, job_id: str, name: str) -> bytes | None:
        return self._store.files.get(job_id, {}).get(name)


class ExplodingQuote(GetQuote):
    def __call__(self, request: QuoteRequest) -> Quote:
        raise RuntimeError("boom: secret internals")


def client(
    quote: GetQuote | None = None,
    store: FakeResultStore | None = None,
    clock: FakeClock | None = None,
) -> falcon.testing.TestClient:
    data = repo()
    store = store or FakeResultStore()
    services = ApiServices(
        quote=quote or GetQuote(AssessDevelopments(data), clock=FakeClock(QUOTE_MOMENT)),
        check=CheckBoundary(data),
        reference_for=data.reference_for,
        store=store,
        files=StoreFiles(store),
        limits=DEFAULT_LIMITS,
        clock=clock or FakeClock(QUOTE_MOMENT),
    )
    ids = iter(f"rid-{n}" for n in range(1, 1000))
    return falcon.testing.TestClient(create_app(services, ApiKeys([KEY]), new_id=lambda: next(ids)))


def site_body(x: float = X0 + 100, y: float = Y0 + 100) -> str:
    ring = [list(p) for p in box(x, y, x + 100, y + 100).exterior.coords]
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    feature = {
        "type": "Feature",
        "properties": SITE,
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }
    return json.dumps({"type": "FeatureCollection", "crs": crs, "features": [feature]})


def test_the_worst_problem_sets_the_status() -> None:
    mixed = InvalidInput(
        [
            Problem(code="invalid_dwellings", message="x"),
            Problem(code="too_many_vertices", message="y"),
        ]
    )
    assert (from_error(mixed).status, from_error(mixed).code) == (413, "invalid_input")
    assert from_error(InvalidInput([Problem(code="zero_area", message="z")])).status == 422
    assert from_error(InvalidInput([Problem(code="unknown_rule_set", message="r")])).status == 400
    assert from_error(BrokenBundle("gone")).status == 503


def test_a_quote_in_process_has_the_request_id_and_the_figures() -> None:
    answer = client().simulate_post("/v1/quotes", body=site_body(), headers=HEADERS)
    assert answer.status_code == 200 and answer.headers["x-request-id"] == "rid-1"
    [site] = answer.json["sites"]
    assert site["dev_area_ha"] == 1.0 and site["majority_wwtw_id"] == 1065


def test_an_answer_is_stamped_by_the_injected_clock() -> None:
    clock = FakeClock(QUOTE_MOMENT)  # 2026-11-26 23:59:00 UTC
    clock.advance(61.5)
    answer = client(clock=clock).simulate_post("/v1/quotes", body=site_body(), headers=HEADERS)
    assert answer.json["stamp"] == {
        "made_at": "2026-11-27T00:00:01.500000+00:00",  # 23:59:00 + 61.5 s
        "input": "POST /v1/quotes body",
        "reference": None,
    }


def test_an_unexpected_failure_is_a_500_problem_without_internals() -> None:
    broken = ExplodingQuote(AssessDevelopments(repo()), clock=FakeClock(QUOTE_MOMENT))
    answer = client(quote=broken).simulate_post("/v1/quotes", body=site_body(), headers=HEADERS)
    assert answer.status_code == 500
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json["code"] == "internal_error" and answer.json["request_id"] == "rid-1"
    assert "boom" not in answer.text and "Traceback" not in answer.text


def test_a_job_is_read_back_from_the_store() -> None:
    store = FakeResultStore()
    store.save(
        "j-1",
        {"result.json": b'{"sites": []}'},
        JobRecord(job_id="j-1", status=JobStatus.SUCCEEDED),
    )
    answer = client(store=store).simulate_get("/v1/jobs/j-1", headers={"x-api-key": KEY})
    assert answer.json["status"] == "succeeded" and answer.json["result"] == {"sites": []}
    missing = client(store=store).simulate_get(
        "/v1/jobs/j-1", headers={"x-api-key": KEY, "Accept": "text/html"}
    )
    assert (missing.status_code, missing.json["code"]) == (404, "job_not_found")


@pytest.mark.parametrize("key", ["", "unit-key-012345678", "unit-key-0123456789x"])
def test_only_the_exact_key_is_let_in(key: str) -> None:
    answer = client().simulate_post(
        "/v1/quotes", body=site_body(), headers={**HEADERS, "x-api-key": key}
    )
    assert (answer.status_code, answer.json["code"]) == (401, "unauthorized")


def test_key_positions_name_which_key_matched() -> None:
    keys = ApiKeys(["first-key-000000000", "second-key-00000000"])
    assert (keys.which("second-key-00000000"), keys.which("first-key-000000000")) == (2, 1)
    assert keys.which("third") is None and not ApiKeys([], anonymous=False).configured
    assert (
        ApiKeys([], anonymous=True).anonymous and not ApiKeys(["k" * 16], anonymous=True).anonymous
    )


@pytest.mark.parametrize(
    ("path", "method"),
    [("/v1/quotes", "POST"), ("/v1/boundary-checks", "POST"), ("/v1/jobs/j-1", "GET")],
)
def test_an_accept_header_nothing_can_meet_is_a_406_problem(path: str, method: str) -> None:
    store = FakeResultStore()
    store.save("j-1", {"result.json": b"{}"}, JobRecord(job_id="j-1", status=JobStatus.SUCCEEDED))
    answer = client(store=store).simulate_request(
        method, path, body=site_body(), headers={**HEADERS, "Accept": "application/pdf"}
    )
    assert answer.status_code == 406, answer.text[:300]
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json["code"] == "not_acceptable"


def test_q_values_choose_among_the_four_quote_types() -> None:
    # JSON refused (q=0) beats */*'s 1 for JSON; text/csv 0.5 < text/html 0.7: the report.
    accept = "application/json;q=0, application/geo+json;q=0, text/csv;q=0.5, text/html;q=0.7"
    answer = client().simulate_post(
        "/v1/quotes", body=site_body(), headers={**HEADERS, "Accept": accept}
    )
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert answer.headers["vary"] == "Accept"


def two_sites_body() -> bytes:
    features = []
    for n, x in enumerate((X0 + 100, X0 + 300), start=1):
        ring = [list(p) for p in box(x, Y0 + 100, x + 100, Y0 + 200).exterior.coords]
        properties = {**SITE, "id": f"file-{n}"}
        geometry = {"type": "Polygon", "coordinates": [ring]}
        features.append({"type": "Feature", "properties": properties, "geometry": geometry})
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    return json.dumps({"type": "FeatureCollection", "crs": crs, "features": features}).encode()


@pytest.mark.parametrize("route", ["/v1/quotes", "/v1/boundary-checks"])
def test_a_reference_field_does_not_name_every_site_of_a_file_of_several(route: str) -> None:
    from support.api_server import multipart

    body, content_type = multipart(
        {"boundary": ("two.geojson", two_sites_body())}, {"id": "REF-9", "dwellings": "4"}
    )
    answer = client().simulate_post(
        route, body=body, headers={"x-api-key": KEY, "Content-Type": content_type}
    )
    assert answer.status_code == 200, answer.text[:300]
    sites = [s.get("site", s) for s in answer.json["sites"]]
    assert [s["id"] for s in sites] == ["file-1", "file-2"]
    if route == "/v1/quotes":  # the other fields still apply to every site
        assert [s["dwellings"] for s in sites] == [4, 4]
