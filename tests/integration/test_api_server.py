"""`nrf serve` under real gunicorn: every route, content type and error, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import shapely

from nrf.adapters.boundary_data.packaged import bundled_reference_data
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.domain.jobs import JobRecord, JobStatus
from support.api_inputs import (
    SMALL_JSON,
    SMALL_SHP,
    cli_output,
    collection,
    feature,
    geopackage_of,
    square,
    unstamped,
    zipped_shapefile,
)
from support.api_server import KEY, Server, multipart, running_server, serve_env
from support.sample_facts import nn_overlaps_m2

GEOJSON = "application/geo+json"
PROBLEM = "application/problem+json"
# Near the small Broads & Wensum sample site, well inside the synthetic Norfolk bundle.
X, Y = 582700.0, 328100.0


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("api-results")


@pytest.fixture(scope="module")
def server(results: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("api-log") / "serve.log"
    with running_server(serve_env(results), log) as running:
        yield running


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli")


def assert_problem(answer: object, status: int, code: str) -> dict:
    from support.api_server import Answer

    assert isinstance(answer, Answer)
    assert (answer.status, answer.content_type) == (status, PROBLEM), answer.body[:500]
    doc = answer.json()
    assert doc["status"] == status and doc["code"] == code, doc
    assert doc["type"] == f"urn:nrf:problem:{code}" and doc["request_id"]
    assert b"Traceback" not in answer.body
    return dict(doc)


def test_health_ready_and_openapi_need_no_key(server: Server) -> None:
    assert server.request("GET", "/health").json() == {"status": "ok"}
    ready = server.request("GET", "/ready")
    assert (ready.status, ready.json()["status"]) == (200, "ready")
    spec = server.request("GET", "/openapi.json")
    assert spec.status == 200 and spec.json()["openapi"] == "3.1.0"


@pytest.mark.parametrize("content_type", [GEOJSON, "application/json"])
def test_a_geojson_quote_is_byte_for_byte_the_cli_json(
    server: Server, cli_dir: Path, content_type: str
) -> None:
    answer = server.post("/v1/quotes", SMALL_JSON.read_bytes(), content_type)
    assert (answer.status, answer.content_type) == (200, "application/json")
    body = "POST /v1/quotes body"
    assert unstamped(answer.body, body) == unstamped(
        cli_output(SMALL_JSON, ".json", cli_dir), SMALL_JSON.name
    )


@pytest.mark.parametrize(
    ("accept", "suffix", "media"),
    [
        ("text/csv", ".csv", "text/csv"),
        (GEOJSON, ".geojson", GEOJSON),
        ("text/html", ".html", "text/html"),
        ("application/json", ".json", "application/json"),
        ("text/html;q=0.2, text/csv", ".csv", "text/csv"),
        ("*/*", ".json", "application/json"),
    ],
)
def test_accept_picks_the_same_document_the_cli_writes(
    server: Server, cli_dir: Path, accept: str, suffix: str, media: str
) -> None:
    answer = server.post("/v1/quotes", SMALL_JSON.read_bytes(), GEOJSON, accept=accept)
    assert (answer.status, answer.content_type) == (200, media)
    from_cli = cli_output(SMALL_JSON, suffix, cli_dir)
    body = "POST /v1/quotes body"
    assert unstamped(answer.body, body) == unstamped(from_cli, SMALL_JSON.name)
    assert b"<made-at>" in unstamped(answer.body) and b"<input>" in unstamped(answer.body, body)


@pytest.mark.parametrize(
    "accept", ["application/pdf", "text/csv;q=0, application/*;q=0, text/*;q=0"]
)
def test_an_accept_nothing_meets_is_406_not_json(server: Server, accept: str) -> None:
    answer = server.post("/v1/quotes", SMALL_JSON.read_bytes(), GEOJSON, accept=accept)
    doc = assert_problem(answer, 406, "not_acceptable")
    assert "text/csv" in doc["detail"]  # the answer names what could be sent


def test_the_csv_is_the_levy_table_with_its_header_first(server: Server) -> None:
    from nrf.adapters.outputs import levy_csv

    answer = server.post("/v1/quotes", SMALL_JSON.read_bytes(), GEOJSON, accept="text/csv")
    header, row = answer.body.decode("utf-8-sig").splitlines()[:2]
    assert header.split(",") == list(levy_csv.COLUMNS)
    # RLB_ID is the site's 1-based position; 24/00119/F is the small file's id (its .dbf).
    assert row.startswith("1,24/00119/F,")
    assert "SYNTHETIC DEMONSTRATION DATA" in row  # the bundled data's notice, on the row


def test_rules_query_parameter_is_the_clis_rules_option(server: Server, cli_dir: Path) -> None:
    answer = server.post("/v1/quotes?rules=iat-2025-09", SMALL_JSON.read_bytes(), GEOJSON)
    assert answer.json()["provenance"]["rule_set"] == "iat-2025-09"
    from_cli = cli_output(SMALL_JSON, ".json", cli_dir, "--rules", "iat-2025-09")
    body = "POST /v1/quotes body"
    assert unstamped(answer.body, body) == unstamped(from_cli, SMALL_JSON.name)
    assert_problem(
        server.post("/v1/quotes?rules=iat-1999", SMALL_JSON.read_bytes(), GEOJSON),
        400,
        "unknown_rule_set",
    )


@pytest.mark.parametrize("kind", ["zip", "gpkg", "geojson"])
def test_uploaded_files_give_the_clis_figures_for_the_same_file(
    server: Server, cli_dir: Path, tmp_path: Path, kind: str
) -> None:
    if kind == "zip":
        path = zipped_shapefile(SMALL_SHP, tmp_path / "small.zip")
    elif kind == "gpkg":
        path = geopackage_of(SMALL_JSON, tmp_path / "small.gpkg")
    else:
        path = SMALL_JSON
    body, content_type = multipart({"boundary": (path.name, path.read_bytes())}, {})
    answer = server.post("/v1/quotes", body, content_type)
    assert answer.status == 200, answer.body[:500]
    assert unstamped(answer.body) == unstamped(cli_output(path, ".json", cli_dir))
    assert answer.json()["stamp"]["input"] == path.name  # the uploaded file's own name


def test_form_fields_stand_in_for_the_files_columns(server: Server) -> None:
    body, content_type = multipart(
        {"boundary": ("site.geojson", SMALL_JSON.read_bytes())},
        {"dwellings": "60", "name": "Field name", "id": "REF-9", "rules": "iat-2026-04"},
    )
    site = server.post("/v1/quotes", body, content_type).json()["sites"][0]
    assert (site["site"]["dwellings"], site["site"]["name"], site["site"]["id"]) == (
        60,
        "Field name",
        "REF-9",
    )
    # 60 dwellings >= 50, so SuDS applies under iat-2026-04: post = round2(u - |u| * 0.25).
    uplift = site["n_lu_uplift"]
    assert site["n_lu_post_suds"] == round((uplift - abs(uplift) * 0.25) * 100) / 100
    # The file's category (Dwel_Cat in its .dbf) stays: the form did not give one.
    assert site["site"]["dwelling_category"] == "in-system"


def test_boundary_check_reports_overlaps_majorities_and_scope(server: Server) -> None:
    # 100 m x 100 m = 10,000 m² = 1 ha, with no dwellings property at all.
    body = collection(feature(square(X, Y, 100.0), name="drawn"))
    answer = server.post("/v1/boundary-checks", body, GEOJSON)
    assert answer.status == 200, answer.body[:500]
    site = answer.json()["sites"][0]
    assert site["area_ha"] == 1.0 and site["name"] == "drawn" and site["id"] == "1"
    # The overlaps worked with shapely over the bundle's own nn_catchments table: m² / 10,000
    # in hectares, and / 10,000 m² of the square x 100 as a share (all of it in the Wensum).
    expected = nn_overlaps_m2(shapely.box(X, Y, X + 100.0, Y + 100.0), bundled_reference_data())
    assert [(c["name"], c["area_ha"], c["share_percent"]) for c in site["nn_catchments"]] == [
        (name, round(m2 / 10_000, 2), round(m2 / 100, 2)) for name, m2 in sorted(expected.items())
    ]
    # EDPs from the bundle's EDP layer, in Defra's shape: under each, its catchments' shares
    # of the boundary add up to the EDP's own share (2 dp each, so within a penny per item).
    assert site["intersectingEdps"], "the square lies in the synthetic Norfolk EDP"
    for edp in site["intersectingEdps"]:
        assert edp["overlapAreaHa"] == round(edp["overlapAreaSqm"] / 10_000, 4)
        shares = [c["catchmentOverlapPercentage"] for c in edp["catchments"]]
        assert sum(shares) == pytest.approx(edp["overlapPercentage"], abs=0.01 * len(shares))
    assert isinstance(site["intersectingExcludedAreas"], list)
    # Scope agrees with a quote of the same boundary.
    quote = server.post(
        "/v1/quotes",
        collection(
            feature(
                square(X, Y, 100.0),
                id="q",
                name="q",
                dwelling_category="housing",
                source="",
                dwellings=3,
            )
        ),
        GEOJSON,
    ).json()
    assert site["in_scope"] is (len(quote["sites"]) == 1)
    assert site["majority_wwtw_id"] == quote["sites"][0]["majority_wwtw_id"]
    assert site["majority_lpa"] == quote["sites"][0]["majority_lpa"]


def test_a_stored_job_is_served_with_its_result_and_report(server: Server, results: Path) -> None:
    store = LocalResultStore(results)
    result = {"sites": [], "out_of_scope": [], "levy_total": {"levy_gbp": "0.00"}}
    files = {"result.json": json.dumps(result).encode(), "result.html": b"<html>report</html>"}
    store.save(
        "job-ok-1", files, JobRecord(job_id="job-ok-1", status=JobStatus.SUCCEEDED, finished_at=5.0)
    )
    store.save(
        "job-bad-1",
        {},
        JobRecord(
            job_id="job-bad-1", status=JobStatus.FAILED, error_codes=("zero_area",), message="no"
        ),
    )
    headers = {"x-api-key": KEY}
    ok = server.request("GET", "/v1/jobs/job-ok-1", headers=headers)
    assert ok.status == 200 and ok.json()["status"] == "succeeded"
    assert ok.json()["result"] == result and ok.json()["finished_at"] == 5.0
    page = server.request("GET", "/v1/jobs/job-ok-1", headers={**headers, "Accept": "text/html"})
    assert (page.status, page.content_type, page.body) == (200, "text/html", files["result.html"])
    bad = server.request("GET", "/v1/jobs/job-bad-1", headers=headers).json()
    assert (bad["status"], bad["error_codes"], "result" in bad) == ("failed", ["zero_area"], False)
    assert_problem(
        server.request("GET", "/v1/jobs/never-ran", headers=headers), 404, "job_not_found"
    )
    assert_problem(server.request("GET", "/v1/jobs/.hidden", headers=headers), 404, "job_not_found")
    assert_problem(server.request("GET", "/v1/jobs/job-ok-1"), 401, "unauthorized")


def test_keys_are_checked_and_never_logged(server: Server) -> None:
    wrong = "wrong-key-9876543210fedcba"
    body = SMALL_JSON.read_bytes()
    assert_problem(server.post("/v1/quotes", body, GEOJSON, key=None), 401, "unauthorized")
    answer = server.post("/v1/quotes", body, GEOJSON, key=wrong)
    assert_problem(answer, 401, "unauthorized")
    assert answer.headers["www-authenticate"].startswith("ApiKey")
    assert_problem(server.post("/v1/boundary-checks", body, GEOJSON, key=None), 401, "unauthorized")
    assert server.post("/v1/quotes", body, GEOJSON).status == 200
    log = server.log.read_text()
    assert KEY not in log and wrong not in log


def test_access_log_is_json_with_the_request_id(server: Server) -> None:
    answer = server.request("GET", "/health", headers={"X-Request-Id": "trace-abc.123"})
    assert answer.headers["x-request-id"] == "trace-abc.123"
    odd = server.request("GET", "/health", headers={"X-Request-Id": "bad id with spaces"})
    assert odd.headers["x-request-id"] != "bad id with spaces"
    lines = [
        json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")
    ]
    mine = [e for e in lines if e.get("request_id") == "trace-abc.123"]
    assert mine and mine[0]["event"] == "request" and mine[0]["status"] == 200
    assert mine[0]["path"] == "/health" and mine[0]["method"] == "GET"


def test_errors_are_problem_documents_with_the_clis_codes(server: Server) -> None:
    body = SMALL_JSON.read_bytes()
    assert_problem(server.post("/v1/quotes", body, "text/plain"), 415, "unsupported_media_type")
    form, form_type = multipart({"boundary": ("site.txt", b"hello")}, {})
    assert_problem(server.post("/v1/quotes", form, form_type), 415, "unsupported_file_type")
    empty, empty_type = multipart({}, {"dwellings": "3"})
    assert_problem(server.post("/v1/quotes", empty, empty_type), 400, "missing_file")
    assert_problem(server.post("/v1/quotes", b'{"type": "Feat', GEOJSON), 400, "not_json")
    assert_problem(server.request("GET", "/v2/nothing"), 404, "not_found")
    assert server.request("GET", "/v1/quotes", headers={"x-api-key": KEY}).status == 405
    # Two problems in one site: negative dwellings and a bow-tie ring; both are reported.
    bow_tie = [[X, Y], [X + 50, Y + 50], [X + 50, Y], [X, Y + 50], [X, Y]]
    bad = collection(
        feature(bow_tie, id="a", name="a", dwelling_category="housing", source="", dwellings=-3)
    )
    doc = assert_problem(server.post("/v1/quotes", bad, GEOJSON), 422, "invalid_input")
    codes = {(p["code"], p["feature"], p["field"]) for p in doc["problems"]}
    assert ("invalid_dwellings", 1, "dwellings") in codes
    assert ("self_intersecting_geometry", 1, "geometry") in codes


def test_the_upload_form_works_without_javascript(server: Server) -> None:
    page = server.request("GET", "/")
    text = page.body.decode()
    assert page.status == 200 and page.content_type == "text/html"
    assert 'enctype="multipart/form-data"' in text and "<script" not in text
    assert 'name="api_key"' in text  # keys are configured, so the form asks for one
    form, form_type = multipart(
        {"boundary": ("site.geojson", SMALL_JSON.read_bytes())}, {"api_key": KEY}
    )
    report = server.post("/", form, form_type, key=None, accept="text/html")
    assert report.status == 200 and report.content_type == "text/html"
    assert b'id="site-boundary"' in report.body
    refused = server.post(
        "/", form.replace(KEY.encode(), b"x" * len(KEY)), form_type, key=None, accept="text/html"
    )
    assert refused.status == 401 and refused.content_type == "text/html"
    assert b"unauthorized" in refused.body
    as_problem = server.post(
        "/", form.replace(KEY.encode(), b"x" * len(KEY)), form_type, key=None, accept=PROBLEM
    )
    assert_problem(as_problem, 401, "unauthorized")
