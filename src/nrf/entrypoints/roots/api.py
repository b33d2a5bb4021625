"""The quote API's root (`nrf serve`): the worker's assessment, limits and store, behind a gate."""

from __future__ import annotations

from typing import Any

from dependency_injector import providers

from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.limits import HttpLimits
from nrf.adapters.http_server.throttle import RateLimiter
from nrf.entrypoints.api.admission import admission
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.config import ApiSettings
from nrf.entrypoints.api.defra_check_boundary import CHECK_BOUNDARY, too_large_answer
from nrf.entrypoints.api.throttle import api_throttle
from nrf.entrypoints.roots.core import Core, build
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.defra_boundary_check import CheckBoundaryAsDefra
from nrf.service_layer.quotes import GetQuote


class ApiRoot(Core):
    """The API's use cases, built once per gunicorn worker (api/app.py)."""

    get_quote = providers.Factory(
        GetQuote,
        assess=Core.assess_developments,
        limits=Core.limits,
        default_rules=Core.config.default_rules,
        clock=Core.clock,
    )
    check_boundary = providers.Factory(
        CheckBoundary,
        repository=Core.boundary_data,
        limits=Core.limits,
        default_rules=Core.config.default_rules,
    )
    check_boundary_as_defra = providers.Factory(CheckBoundaryAsDefra, repository=Core.boundary_data)


def build_api_root(settings: WorkerSettings | None = None) -> ApiRoot:
    """One API process's root."""
    return build(ApiRoot, settings=settings)


def api_gate(app: Any, api: ApiSettings, limits: HttpLimits) -> Gate:
    """The app behind its connection gate: admission by key, then a throttle per client and
    per valid key, each limiter this process's own."""
    keys = ApiKeys(api.keys, api.allow_anonymous)
    throttle = api_throttle(
        keys,
        RateLimiter(api.client_rate),
        RateLimiter(api.key_rate),
        trust_forwarded_for=api.trust_forwarded_for,
    )
    return Gate(app, limits, admission(keys), throttle, {CHECK_BOUNDARY: too_large_answer})
