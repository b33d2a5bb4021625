"""The quote API's root (`nrf serve`): the same assessment, limits and store as the worker."""

from __future__ import annotations

from dependency_injector import providers

from nrf.entrypoints.roots.core import Core, build
from nrf.entrypoints.settings import WorkerSettings
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
