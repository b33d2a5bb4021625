"""The quote API's Falcon app: a pure ``create_app`` for tests and gunicorn's ``get_app``."""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

import falcon

from nrf.domain.errors import NrfError
from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api import problems
from nrf.entrypoints.api.access_log import AccessLog
from nrf.entrypoints.api.auth import ApiKeys, AuthMiddleware
from nrf.entrypoints.api.config import load_api_settings
from nrf.entrypoints.api.form import FormResource
from nrf.entrypoints.api.jobs import JobsResource
from nrf.entrypoints.api.meta import HealthResource, OpenApiResource, ReadyResource
from nrf.entrypoints.api.quotes import BoundaryChecksResource, QuotesResource
from nrf.entrypoints.api.services import ApiServices

log = logging.getLogger("nrf.api")

# Path -> the methods served there; the OpenAPI test checks this against the document.
ROUTES = {
    "/": ("get", "post"),
    "/v1/quotes": ("post",),
    "/v1/boundary-checks": ("post",),
    "/v1/jobs/{job_id}": ("get",),
    "/openapi.json": ("get",),
    "/health": ("get",),
    "/ready": ("get",),
}


def create_app(
    services: ApiServices,
    keys: ApiKeys,
    *,
    new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
    clock: Callable[[], float] = time.perf_counter,
) -> falcon.App:
    middleware: list[Any] = [AccessLog(new_id, clock), AuthMiddleware(keys)]
    app = falcon.App(middleware=middleware)
    app.req_options.auto_parse_form_urlencoded = False
    problems.install(app)
    quotes = QuotesResource(services)
    resources = {
        "/": FormResource(quotes, keys),
        "/v1/quotes": quotes,
        "/v1/boundary-checks": BoundaryChecksResource(services),
        "/v1/jobs/{job_id}": JobsResource(services),
        "/openapi.json": OpenApiResource(),
        "/health": HealthResource(),
        "/ready": ReadyResource(services),
    }
    for path, resource in resources.items():
        app.add_route(path, resource)
    return app


def get_app() -> falcon.App:
    """Gunicorn's factory, run once in each worker: the bundle is opened here, per process."""
    from nrf.entrypoints.container import build_container
    from nrf.entrypoints.logging_setup import configure_logging
    from nrf.entrypoints.settings import load_settings

    api = load_api_settings(os.environ)
    settings = load_settings(os.environ)
    configure_logging(secrets=[*api.keys, *settings.secrets()])
    container = build_container(settings=settings)
    unavailable = None
    try:
        # Opening and hashing now keeps that cost out of the first request.
        info = container.boundary_data().info()
        log.info(
            "api_bundle_open",
            extra={"bundle": info.name, "version": info.version, "pid": os.getpid()},
        )
    except NrfError as exc:
        unavailable = exc.message
        log.error("api_bundle_unavailable", extra={"code": exc.code, "error": exc.message})
    services = ApiServices(
        quote=None if unavailable else container.get_quote(),
        check=None if unavailable else container.check_boundary(),
        reference_for=None if unavailable else container.boundary_data().reference_for,
        store=container.result_store(),
        files=container.result_files(),
        limits=container.limits() if unavailable is None else DEFAULT_LIMITS,
        body_timeout=api.body_timeout,
        unavailable=unavailable,
    )
    return create_app(services, ApiKeys(api.keys, api.allow_anonymous))
