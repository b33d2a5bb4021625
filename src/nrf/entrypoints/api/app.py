"""The quote API's Falcon app: a pure ``create_app`` for tests and gunicorn's ``get_app``."""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

import falcon

from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.http_server.gate import Gate
from nrf.domain.errors import NrfError
from nrf.domain.model import BundleInfo
from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api import problems
from nrf.entrypoints.api.access_log import AccessLog
from nrf.entrypoints.api.auth import ApiKeys, AuthMiddleware
from nrf.entrypoints.api.config import http_limits, load_api_settings
from nrf.entrypoints.api.defra_check_boundary import (
    CHECK_BOUNDARY,
    DefraCheckBoundaryResource,
)
from nrf.entrypoints.api.form import FormResource
from nrf.entrypoints.api.jobs import JobsResource
from nrf.entrypoints.api.meta import HealthResource, OpenApiResource, ReadyResource
from nrf.entrypoints.api.quotes import BoundaryChecksResource, QuotesResource
from nrf.entrypoints.api.services import ApiServices

log = logging.getLogger("nrf.api")


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
        CHECK_BOUNDARY: DefraCheckBoundaryResource(services),
        "/v1/jobs/{job_id}": JobsResource(services),
        "/openapi.json": OpenApiResource(),
        "/health": HealthResource(services),
        "/ready": ReadyResource(services),
    }
    for path, resource in resources.items():
        app.add_route(path, resource)
    return app


def get_app() -> falcon.App:
    """Gunicorn's factory, run once in each worker: the bundle is opened here, per process.

    `nrf serve` has already fetched and verified the pinned bundle and names the local copy in
    ``NRF_REFERENCE_DATA``; a process started otherwise still refuses an S3 location, a file
    other than the pinned one and synthetic data without the opt-in (503, never healthy).
    """
    from nrf.adapters.environment.settings import load_settings
    from nrf.adapters.telemetry.logging_setup import configure_logging
    from nrf.entrypoints.roots.api import build_api_root
    from nrf.entrypoints.startup_heap import freeze_startup_heap

    api = load_api_settings(os.environ)
    settings = load_settings(os.environ)
    configure_logging(secrets=[*api.keys, *settings.secrets()])
    container = build_api_root(settings)
    unavailable, info = None, None
    try:
        info = open_pinned_bundle(settings, container)
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
        defra_check=None if unavailable else container.check_boundary_as_defra(),
        reference_for=None if unavailable else container.boundary_data().reference_for,
        store=container.result_store(),
        files=container.result_files(),
        limits=container.limits() if unavailable is None else DEFAULT_LIMITS,
        unavailable=unavailable,
        bundle=info,
        clock=container.clock(),
    )
    app = create_app(services, ApiKeys(api.keys, api.allow_anonymous))
    freeze_startup_heap()
    return app


def open_pinned_bundle(settings: WorkerSettings, container: Any) -> BundleInfo:
    """Open the root's bundle and hold it to the pin; NrfError when it may not be served."""
    from nrf.adapters.boundary_data.bundle_fetch import DIGEST_MISMATCH
    from nrf.adapters.boundary_data.bundle_location import S3Location, parse_location
    from nrf.entrypoints.reference_bundle import refuse_unless_allowed

    if settings.reference_data and isinstance(parse_location(settings.reference_data), S3Location):
        raise NrfError(
            "reference_data_not_fetched",
            f"NRF_REFERENCE_DATA is {settings.reference_data}: start the API with `nrf serve`, "
            "which downloads and verifies it first",
        )
    # Opening and hashing now keeps that cost out of the first request.
    data = container.boundary_data()
    info: BundleInfo = data.info()
    pinned = settings.reference_data_sha256
    if pinned and info.sha256 != pinned:
        raise NrfError(
            DIGEST_MISMATCH,
            f"{data.path} has SHA-256 {info.sha256}, but NRF_REFERENCE_DATA_SHA256 pins {pinned}",
        )
    refuse_unless_allowed(settings, data.path, info)
    return info


def get_gate() -> Gate:
    """The factory gunicorn's HypercornWorker loads: the app behind its connection gate."""
    from nrf.adapters.environment.settings import load_settings
    from nrf.entrypoints.roots.api import api_gate

    api = load_api_settings(os.environ)
    return api_gate(get_app(), api, http_limits(api, load_settings(os.environ).max_file_bytes))
