"""What the API's resources use, built once per gunicorn worker from the API's root."""

from __future__ import annotations

import threading

from attrs import field, frozen

from nrf.adapters.clock.system_clock import SystemClock
from nrf.adapters.outputs.html_report import ReferenceFor
from nrf.domain.model import BundleInfo
from nrf.domain.ports import Clock, ResultFiles, ResultStore
from nrf.domain.validation import InputLimits
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.defra_boundary_check import CheckBoundaryAsDefra
from nrf.service_layer.quotes import GetQuote


@frozen(kw_only=True)
class ApiServices:
    """The use cases and adapters; ``unavailable`` holds why the bundle could not be opened,
    ``bundle`` the one that was (``/ready`` names it)."""

    quote: GetQuote | None
    check: CheckBoundary | None
    reference_for: ReferenceFor | None
    store: ResultStore | None
    files: ResultFiles | None
    limits: InputLimits
    defra_check: CheckBoundaryAsDefra | None = None  # POST /check-boundary, Defra's contract
    unavailable: str | None = None
    bundle: BundleInfo | None = None
    clock: Clock = field(factory=SystemClock)  # stamps each answer with when it was made
    # One assessment or report at a time per process: the bundle's geometries are shared and
    # GEOS builds their prepared indexes lazily, which is not safe from two threads at once
    # (a process serves several threads; seen as SIGSEGV under load). Bodies are read outside it.
    geo_lock: threading.Lock = field(factory=threading.Lock, eq=False)
