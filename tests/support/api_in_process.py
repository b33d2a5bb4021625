"""The API's Falcon app in process over the two-catchment test strip, with no keys needed."""

from __future__ import annotations

import falcon.testing

from fakes import FakeClock
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.quotes import GetQuote
from support.reference import QUOTE_MOMENT
from support.reference import two_catchment_strip as repo


def anonymous_client(limits: InputLimits = DEFAULT_LIMITS) -> falcon.testing.TestClient:
    """A client of the whole app (quotes, boundary checks, the form) in anonymous mode."""
    data = repo()
    services = ApiServices(
        quote=GetQuote(AssessDevelopments(data), clock=FakeClock(QUOTE_MOMENT)),
        check=CheckBoundary(data),
        reference_for=data.reference_for,
        store=None,
        files=None,
        limits=limits,
    )
    return falcon.testing.TestClient(create_app(services, ApiKeys([], anonymous=True)))
