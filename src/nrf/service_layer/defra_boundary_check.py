"""Use case: Defra's ``/check-boundary`` over nrf's bundle, so Defra's front end can use nrf.

A boundary file's features are judged by Defra's rules (``defra_geometry``), then the union of
their polygons is looked up as Defra's check does: every EDP it meets, on any contact, with the
m² and share of the boundary inside it (the EDP's polygons of one id dissolved, as nrf's quote
does); under each, the boundary's NN catchments (the same list for every EDP, each catchment
by its own label); and the excluded areas its interior meets by more than 0.001 m², named
(stripped, once each, sorted; a blank name is Defra's "Unnamed exclusion area", so the
boundary is still refused). Figures stay unrounded here: the answer rounds them as Defra does.
"""

from __future__ import annotations

import shapely
from attrs import frozen
from shapely.geometry import Polygon

from nrf.domain.boundary_codes import COORDINATES_OUT_OF_RANGE
from nrf.domain.defra_geometry import coordinates_out_of_range, defra_geometry_error
from nrf.domain.edp_geography import catchment_overlaps, edp_areas, excluded_areas_met
from nrf.domain.ports import BoundaryDataRepository
from nrf.domain.results import CatchmentOverlap
from nrf.domain.site_outlines import SiteOutlines
from nrf.domain.validation import RawFeature

UNNAMED_EXCLUDED_AREA = "Unnamed exclusion area"


@frozen
class DefraCheckRequest:
    """The features of one uploaded boundary file, already in British National Grid."""

    features: tuple[RawFeature, ...]


@frozen(kw_only=True)
class DefraEdp:
    """An EDP the boundary meets: its name, the m² of the boundary in it and that share (%)."""

    label: str
    overlap_m2: float
    overlap_percentage: float


@frozen(kw_only=True)
class DefraBoundaryCheck:
    """The answer: ``error`` None and the lookups, or Defra's code and the geometry to preview."""

    geometries: tuple[object, ...]  # every feature's, in file order (a refused one previewed)
    polygon: Polygon | None = None  # the first, as Defra returns it; None when refused
    edps: tuple[DefraEdp, ...] = ()
    catchments: tuple[CatchmentOverlap, ...] = ()
    excluded_areas: tuple[str, ...] = ()
    error: str | None = None


def excluded_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """Stripped, once each and sorted; a blank name stands as ``UNNAMED_EXCLUDED_AREA``."""
    return tuple(sorted({n.strip() or UNNAMED_EXCLUDED_AREA for n in names}))


class CheckBoundaryAsDefra:
    """Judge the geometry by Defra's rules, then look the boundary up in the bundle."""

    def __init__(self, repository: BoundaryDataRepository) -> None:
        self._repository = repository

    def __call__(self, request: DefraCheckRequest) -> DefraBoundaryCheck:
        geometries = tuple(f.geometry for f in request.features)
        if coordinates_out_of_range(geometries):
            return DefraBoundaryCheck(geometries=(), error=COORDINATES_OUT_OF_RANGE)
        error = defra_geometry_error(geometries)
        if error is not None:
            return DefraBoundaryCheck(geometries=geometries, error=error)
        polygons = [g for g in geometries if isinstance(g, Polygon)]
        boundary = shapely.union_all(polygons)
        ref = self._repository.reference_for(boundary)
        site = SiteOutlines(boundary)
        names = {e.edp_id: e.edp_name for e in reversed(ref.edps)}  # the first polygon's name
        edps = tuple(
            DefraEdp(
                label=names[edp_id],
                overlap_m2=area,
                overlap_percentage=100 * area / site.area if site.area > 0 else 0.0,
            )
            for edp_id, area in sorted(edp_areas(site, ref.edps).items())
        )
        return DefraBoundaryCheck(
            geometries=geometries,
            polygon=polygons[0],
            edps=edps,
            catchments=catchment_overlaps(boundary, ref.nn_catchments, site) if edps else (),
            excluded_areas=excluded_names(excluded_areas_met(boundary, ref.excluded_areas, site)),
        )
