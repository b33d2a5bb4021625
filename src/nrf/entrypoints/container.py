"""The composition root: one dependency-injector container per process."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from dependency_injector import containers, providers

from nrf.adapters.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.domain.assessment import AssessDevelopments


def bundled_reference_data() -> Path:
    """The synthetic Norfolk demo bundle shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "synthetic-norfolk.gpkg"))


def bundled_samples() -> Path:
    """The Open Government Licence sample boundaries shipped inside the package."""
    return Path(str(resources.files("nrf") / "data" / "samples" / "defra-rlb-samples"))


class Container(containers.DeclarativeContainer):
    """Wires adapters to the domain; tests override providers with fakes."""

    config = providers.Configuration()

    boundary_data = providers.Singleton(
        GeoPackageBoundaryData,
        path=config.reference_data,
    )

    assess_developments = providers.Factory(AssessDevelopments, repository=boundary_data)


def build_container(reference_data: str | Path | None = None) -> Container:
    container = Container()
    container.config.reference_data.from_value(str(reference_data or bundled_reference_data()))
    return container
