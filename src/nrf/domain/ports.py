"""Ports: what the domain needs from the outside world, as typing.Protocol."""

from __future__ import annotations

from typing import Protocol

from nrf.domain.model import Boundary, BundleInfo, LookupTables, SiteReferenceData


class BoundaryDataRepository(Protocol):
    """Reference data for the calculation: reads only what a site touches."""

    def info(self) -> BundleInfo:
        """Name, version and SHA-256 of the bundle."""
        ...

    def lookups(self) -> LookupTables:
        """Permits, occupancy rates and levy rates."""
        ...

    def reference_for(self, boundary: Boundary) -> SiteReferenceData:
        """Every reference polygon whose bounding box meets the boundary's."""
        ...
