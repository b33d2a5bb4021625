"""The served OpenAPI document is valid 3.1 and says exactly what the routes do."""

from __future__ import annotations

import ast
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon
import falcon.inspect
import pytest
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from support.api_inputs import SMALL_JSON
from support.api_server import KEY, Answer, Server, multipart, running_server, serve_env

METHODS = ("get", "post", "put", "patch", "delete")
API_CODE = Path(__file__).resolve().parents[2] / "src" / "nrf" / "entrypoints" / "api"
MAX_BODY = 2_000_000  # NRF_MAX_FILE_BYTES of this module's server, so a 413 is cheap
JSON_TYPES = ("application/json", "application/problem+json", "application/geo+json")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("openapi")
    env = serve_env(folder / "results", NRF_MAX_FILE_BYTES=str(MAX_BODY))
    with running_server(env, folder / "serve.log") as running:
        yield running


@pytest.fixture(scope="module")
def spec(server: Server) -> dict:
    answer = server.request("GET", "/openapi.json")
    assert answer.status == 200
    doc: dict = answer.json()
    return doc


def test_the_document_is_valid_openapi_3_1(spec: dict) -> None:
    validate(spec)  # raises on any fault
    assert spec["openapi"].startswith("3.1")


def served_routes(app: falcon.App) -> dict[str, set[str]]:
    """Path -> the methods its resource serves, read from the app's own router: the routes are
    listed once, in ``create_app``, and the document is compared with what is served."""
    return {
        route.path: {method.method.lower() for method in route.methods if not method.internal}
        for route in falcon.inspect.inspect_routes(app)
    }


@pytest.fixture(scope="module")
def routes() -> dict[str, set[str]]:
    services = ApiServices(
        quote=None,
        check=None,
        reference_for=None,
        store=None,
        files=None,
        limits=DEFAULT_LIMITS,
        unavailable="test",
    )
    return served_routes(create_app(services, ApiKeys(["k" * 16])))


def test_every_route_is_documented_and_every_documented_route_exists(
    spec: dict, routes: dict[str, set[str]]
) -> None:
    # The read must see the routes it polices, or the check passes on nothing.
    assert {"/v1/quotes", "/v1/jobs/{job_id}", "/health"} <= routes.keys()
    assert routes["/"] == {"get", "post"}
    documented = {path: {m for m in item if m in METHODS} for path, item in spec["paths"].items()}
    assert documented == routes


def _escaped(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _validate(spec: dict, pointer: list[str], instance: Any) -> None:
    """Validate ``instance`` against the schema at ``pointer`` in the document, $refs and all."""
    resource = Resource.from_contents(spec, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:nrf:openapi", resource)
    schema = {"$ref": "urn:nrf:openapi#/" + "/".join(_escaped(p) for p in pointer)}
    validator = OAS31Validator(
        schema, registry=registry, format_checker=OAS31Validator.FORMAT_CHECKER
    )
    validator.validate(instance)


def _check(spec: dict, path: str, method: str, answer: object, query: str = "") -> None:
    """The status and type are documented for the operation, and the body matches its schema;
    every query parameter the request sent is one the operation documents."""
    assert isinstance(answer, Answer)
    operation = spec["paths"][path][method]
    documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
    sent = {pair.split("=")[0] for pair in query.split("&") if pair}
    assert sent <= documented, (path, method, sent - documented)
    responses = operation["responses"]
    assert str(answer.status) in responses, (path, method, answer.status)
    content = responses[str(answer.status)].get("content", {})
    assert answer.content_type in content, (path, method, answer.status, answer.content_type)
    pointer = ["paths", path, method, "responses", str(answer.status), "content"]
    pointer += [answer.content_type, "schema"]
    body = answer.json() if answer.content_type in JSON_TYPES else answer.body.decode()
    _validate(spec, pointer, body)


def test_real_answers_match_the_documented_statuses_and_types(server: Server, spec: dict) -> None:
    body = SMALL_JSON.read_bytes()
    form, form_type = multipart({"boundary": ("s.geojson", body)}, {"api_key": KEY})
    csv_form, csv_type = multipart(
        {"boundary": ("s.geojson", body)}, {"api_key": KEY, "output": "csv"}
    )
    key = {"x-api-key": KEY}
    calls = [
        ("/health", "get", server.request("GET", "/health")),
        ("/ready", "get", server.request("GET", "/ready")),
        ("/openapi.json", "get", server.request("GET", "/openapi.json")),
        ("/", "get", server.request("GET", "/")),
        ("/", "post", server.post("/", form, form_type, key=None)),
        ("/", "post", server.post("/", csv_form, csv_type, key=None)),
        ("/", "post", server.post("/", b"{}", "application/json", key=None)),
        ("/v1/jobs/{job_id}", "get", server.request("GET", "/v1/jobs/none", headers=key)),
        ("/v1/jobs/{job_id}", "get", server.request("GET", "/v1/jobs/none")),
        (
            "/v1/boundary-checks",
            "post",
            server.post("/v1/boundary-checks", body, "application/json"),
        ),
        (
            "/v1/boundary-checks",
            "post",
            server.post("/v1/boundary-checks", b"[", "application/json"),
        ),
    ]
    for accept in ("application/json", "text/csv", "application/geo+json", "text/html"):
        calls.append(
            (
                "/v1/quotes",
                "post",
                server.post("/v1/quotes", body, "application/geo+json", accept=accept),
            )
        )
    for path in ("/v1/quotes", "/v1/boundary-checks"):
        calls.append(
            (path, "post", server.post(path, body, "application/json", accept="application/pdf"))
        )
    pdf = {**key, "Accept": "application/pdf"}
    calls.append(("/v1/jobs/{job_id}", "get", server.request("GET", "/v1/jobs/none", headers=pdf)))
    for content_type in ("text/plain", "application/json"):
        calls.append(("/v1/quotes", "post", server.post("/v1/quotes", b"{}", content_type)))
    calls.append(
        ("/v1/quotes", "post", server.post("/v1/quotes", body, "application/json", key=None))
    )
    for path, method, answer in calls:
        _check(spec, path, method, answer)


def test_every_rate_limited_route_documents_429_with_retry_after_and_the_probes_do_not(
    spec: dict, routes: dict[str, set[str]]
) -> None:
    from nrf.entrypoints.api.throttle import EXEMPT

    for path, methods in routes.items():
        for method in sorted(methods):
            responses = spec["paths"][path][method]["responses"]
            if path in EXEMPT:
                assert "429" not in responses, (path, method)
            else:
                assert "Retry-After" in responses["429"]["headers"], (path, method)


def _raw(port: int, data: bytes) -> Answer:
    """Bytes the HTTP server itself refuses (no client library would send them)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    return Answer(int(lines[0].split()[1]), headers, body)


def test_every_status_the_api_answers_is_documented_with_its_body(
    server: Server, spec: dict
) -> None:
    """A request for each thing that can go wrong, and each query parameter the API takes."""
    body = SMALL_JSON.read_bytes()
    gj = "application/geo+json"
    # A ring that crosses itself: 422 self_intersecting_geometry.
    bowtie = json.dumps(
        {
            "type": "Feature",
            "properties": {"dwellings": 5},
            "geometry": {
                "type": "Polygon",
                "coordinates": [
                    [[1.0, 52.6], [1.01, 52.61], [1.01, 52.6], [1.0, 52.61], [1.0, 52.6]]
                ],
            },
        }
    ).encode()
    form, form_type = multipart({"boundary": ("s.geojson", body)}, {"columns": "id=id"})
    answers = {
        "quote, every parameter": (
            "/v1/quotes",
            "rules=iat-2026-04&quoteDate=2027-03-01&columns=dwellings%3DDwellings",
            body,
            gj,
        ),
        "check, every parameter": (
            "/v1/boundary-checks",
            "rules=iat-2026-04&quoteDate=2027-03-01&columns=dwellings%3DDwellings",
            body,
            gj,
        ),
        "form upload with layer": ("/v1/quotes", "layer=s", form, form_type),
        "bad quote date": ("/v1/quotes", "quoteDate=1/3/2027", body, gj),
        "crs with a JSON answer": ("/v1/quotes", "crs=EPSG:27700", body, gj),
        "crs with a boundary check": ("/v1/boundary-checks", "crs=EPSG:27700", body, gj),
        "layer with GeoJSON": ("/v1/quotes", "layer=x", body, gj),
        "not JSON": ("/v1/quotes", "", b"[", gj),
        "self-intersecting": ("/v1/quotes", "", bowtie, gj),
        "wrong type": ("/v1/quotes", "", body, "text/plain"),
    }
    seen = set()
    for name, (path, query, data, kind) in answers.items():
        answer = server.post(f"{path}?{query}" if query else path, data, kind)
        seen.add(answer.status)
        _check(spec, path, "post", answer, query)
        assert answer.status < 500, (name, answer.body[:300])
    # The British National Grid GeoJSON: a 200 the GeoJson schema documents.
    bng = server.post("/v1/quotes?crs=EPSG:27700", body, gj, accept=gj)
    assert bng.status == 200 and "crs" in bng.json()
    _check(spec, "/v1/quotes", "post", bng, "crs=EPSG:27700")
    # Over the size limit: refused from Content-Length, before a byte of the body is sent
    # (sending it would race the server's close), so only the head goes.
    too_large = f"POST /v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: {gj}\r\n"
    too_large += f"x-api-key: {KEY}\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n"
    for data in (
        too_large.encode(),
        b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /v1/quotes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
    ):
        answer = _raw(server.port, data)
        seen.add(answer.status)
        _check(spec, "/v1/quotes", "post", answer)
    # Each of these happened: 200, 400, 413, 415, 422, 431, 501 (401, 404, 406: the test above).
    assert seen >= {200, 400, 413, 415, 422, 431, 501}, seen


def _accepted_query_parameters() -> set[str]:
    """Every ``req.get_param("name")`` in the API's code: the query parameters it reads."""
    found = set()
    for source in API_CODE.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr.startswith("get_param")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(str(node.args[0].value))
    return found


def test_every_query_parameter_the_api_reads_is_documented(spec: dict) -> None:
    accepted = _accepted_query_parameters()
    assert {"rules", "quoteDate", "layer", "columns", "crs"} <= accepted  # the scan finds them
    for path in ("/v1/quotes", "/v1/boundary-checks"):
        documented = {p["name"] for p in spec["paths"][path]["post"]["parameters"]}
        assert accepted <= documented, (path, accepted - documented)


def test_the_upload_schema_names_every_form_field_the_api_reads(spec: dict) -> None:
    from nrf.entrypoints.api.inputs import FIELDS

    upload = spec["components"]["schemas"]["Upload"]["properties"]
    from nrf.entrypoints.api.form import KEPT

    # Every field the API reads (inputs.FIELDS) and every field the form sends.
    sent = {"boundary", "rules", "layer", "columns", "api_key", "output", *FIELDS, *KEPT}
    assert sent <= set(upload), sent - set(upload)
    assert ".kml" in upload["boundary"]["description"]
    assert ".kmz" in upload["boundary"]["description"]


def test_the_result_schema_refuses_what_is_not_a_result(server: Server, spec: dict) -> None:
    # The schema has teeth: a real answer passes, the same with a site's total as text fails.
    answer = server.post("/v1/quotes", SMALL_JSON.read_bytes(), "application/geo+json")
    doc = answer.json()
    pointer = ["components", "schemas", "Result"]
    _validate(spec, pointer, doc)
    doc["sites"][0]["n_total"] = "2.9"
    with pytest.raises(Exception, match="is not of type 'number'"):
        _validate(spec, pointer, doc)
    del doc["sites"][0]["n_total"]
    with pytest.raises(Exception, match="required"):
        _validate(spec, pointer, doc)


def test_the_geojson_answer_schema_names_every_site_property(server: Server, spec: dict) -> None:
    # A client generated from the document reads each feature's figures by name: the GeoJSON
    # answer (WGS 84, and British National Grid with ?crs=EPSG:27700) is described property
    # by property, as the JSON answer's Result is, and a missing one fails.
    body = SMALL_JSON.read_bytes()
    pointer = ["paths", "/v1/quotes", "post", "responses", "200", "content"]
    pointer += ["application/geo+json", "schema"]
    for query in ("", "?crs=EPSG:27700"):
        answer = server.post(f"/v1/quotes{query}", body, "application/json", accept=GEOJSON)
        assert answer.status == 200
        doc = answer.json()
        _validate(spec, pointer, doc)
    schema = spec["components"]["schemas"]["ResultGeoJson"]
    feature = schema["properties"]["features"]["items"]
    described = feature["properties"]["properties"]
    assert set(described["properties"]) == set(doc["features"][0]["properties"])
    assert doc["crs"]["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
    del doc["features"][0]["properties"]["levy_excl_vat_gbp"]
    with pytest.raises(Exception, match="required"):
        _validate(spec, pointer, doc)


GEOJSON = "application/geo+json"
