"""The served OpenAPI document is valid 3.1 and says exactly what the routes do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from openapi_spec_validator import validate

from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api.app import ROUTES, create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from support.api_inputs import SMALL_JSON
from support.api_server import KEY, Server, multipart, running_server, serve_env

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("openapi")
    with running_server(serve_env(folder / "results"), folder / "serve.log") as running:
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


def test_every_route_is_documented_and_every_documented_route_exists(spec: dict) -> None:
    documented = {path: {m for m in item if m in METHODS} for path, item in spec["paths"].items()}
    assert documented == {path: set(methods) for path, methods in ROUTES.items()}
    services = ApiServices(
        quote=None,
        check=None,
        reference_for=None,
        store=None,
        files=None,
        limits=DEFAULT_LIMITS,
        unavailable="test",
    )
    app = create_app(services, ApiKeys(["k" * 16]))
    for path, methods in documented.items():
        found = app._router.find(path.replace("{job_id}", "job-1"))
        assert found is not None, path
        resource = found[0]
        served = {m for m in METHODS if hasattr(resource, f"on_{m}")}
        assert served == methods, path


def _check(spec: dict, path: str, method: str, answer: object) -> None:
    from support.api_server import Answer

    assert isinstance(answer, Answer)
    responses = spec["paths"][path][method]["responses"]
    assert str(answer.status) in responses, (path, method, answer.status)
    content = responses[str(answer.status)].get("content", {})
    assert answer.content_type in content, (path, method, answer.status, answer.content_type)


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
    spec: dict,
) -> None:
    from nrf.entrypoints.api.throttle import EXEMPT

    for path, methods in ROUTES.items():
        for method in methods:
            responses = spec["paths"][path][method]["responses"]
            if path in EXEMPT:
                assert "429" not in responses, (path, method)
            else:
                assert "Retry-After" in responses["429"]["headers"], (path, method)
