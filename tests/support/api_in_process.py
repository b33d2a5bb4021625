"""The API's Falcon app in process over the two-catchment test strip, with no keys needed."""

from __future__ import annotations

import falcon.testing

from fakes import FakeClock
from nrf.domain.validation import InputLimits
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from nrf.entrypoints.roots.api import ApiRoot
from support.reference import QUOTE_MOMENT
from support.reference import two_catchment_strip as repo
from support.wiring import wired


def anonymous_client(limits: InputLimits | None = None) -> falcon.testing.TestClient:
    """A client of the whole app (quotes, boundary checks, the form) in anonymous mode;
    ``limits`` replace the root's (the worker's settings) where a test sets them."""
    data = repo()
    # The use cases `nrf serve` builds (get_app), over the strip and in one process.
    container = wired(ApiRoot, boundary_data=data, site_map=map, clock=FakeClock(QUOTE_MOMENT))
    services = ApiServices(
        quote=container.get_quote(),
        check=container.check_boundary(),
        defra_check=container.check_boundary_as_defra(),
        reference_for=data.reference_for,
        store=None,
        files=None,
        limits=container.limits() if limits is None else limits,
    )
    return falcon.testing.TestClient(create_app(services, ApiKeys([], anonymous=True)))
