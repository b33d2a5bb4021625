"""What the API's resources use, built once per gunicorn worker from the one container."""

from __future__ import annotations

from attrs import frozen

from nrf.adapters.outputs.html_report import ReferenceFor
from nrf.domain.ports import ResultFiles, ResultStore
from nrf.domain.validation import InputLimits
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.quotes import GetQuote


@frozen
class ApiServices:
    """The use cases and adapters; ``unavailable`` holds why the bundle could not be opened."""

    quote: GetQuote | None
    check: CheckBoundary | None
    reference_for: ReferenceFor | None
    store: ResultStore | None
    files: ResultFiles | None
    limits: InputLimits
    body_timeout: float = 30.0
    unavailable: str | None = None
