"""Which EDPs, NN catchments and excluded areas a boundary meets: polygons of one key dissolved.

A key drawn as several polygons (which may overlap) is one area to a planner, so each is
measured as the union of its polygons' parts inside the boundary, never a sum that would count
an overlap twice (parts that only touch are summed: the same area, without the union). Only
the parts inside the boundary are unioned, so a national polygon's thousands of vertices are
cut to the site first, and only for a key no polygon of which holds the whole site. The three
layers count a meeting as Defra's newest boundary check does: an EDP on any contact
(``ST_Intersects``: a boundary drawn along its edge meets it, with 0 m², so a site touching two
EDPs is refused as in two); a catchment on a positive area; an excluded area only when the
boundary's interior meets it by more than ``MIN_OVERLAP_M2`` (0.001 m², Defra's noise floor),
so a boundary drawn along a zone's edge, which computes as a sliver of square millimetres, is
not excluded. Each outline is tested and cut once per site (``SiteOutlines``), however many of
these lookups, and the land-use step, ask about it.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

import shapely

from nrf.domain.catchment_ids import lowest_ids
from nrf.domain.model import Boundary, EdpPolygon, ExcludedArea, NnCatchment
from nrf.domain.results import CatchmentOverlap, EdpOverlap
from nrf.domain.rounding import round2
from nrf.domain.site_outlines import SiteOutlines

MIN_OVERLAP_M2 = 0.001
K = TypeVar("K", bound=Hashable)


def _areas_by_key(
    site: SiteOutlines, keyed: Iterable[tuple[K, shapely.Geometry]]
) -> dict[K, float]:
    """{key: area (m²) of the union of its polygons' parts inside the boundary}, keys that meet."""
    # A plain loop: a site meets one to three of these features. Most sites lie wholly
    # inside their EDP and catchment; then the part is the whole boundary, and the costly
    # cut of a large outline is skipped.
    met: dict[K, list[shapely.Geometry]] = {}
    for key, geom in keyed:
        if site.met(geom):
            met.setdefault(key, []).append(geom)
    area = site.area
    if not met or area == 0:
        return {}
    areas: dict[K, float] = {}
    for key, geoms in met.items():
        if any(site.wholly_inside(g) for g in geoms):
            areas[key] = area
        else:
            areas[key] = _union_area([site.part_inside(g) for g in geoms])
    return areas


def _union_area(pieces: list[shapely.Geometry]) -> float:
    """Area of the union of one key's pieces: their sum when no two interiors meet.

    Polygons of one key drawn edge to edge (an EDP on its catchments) leave pieces that only
    touch; then the union's area is their sum, and the test (a relate) costs a quarter of
    the union. The two agree to ~1e-10 m², far below the penny of any figure; pieces that
    overlap are unioned, so an overlap is still never counted twice.
    """
    if len(pieces) == 1:
        return float(pieces[0].area)
    try:
        apart = all(
            not shapely.relate_pattern(a, b, "T********")
            for n, a in enumerate(pieces)
            for b in pieces[n + 1 :]
        )
    except shapely.errors.GEOSException:  # a piece GEOS cannot relate: union it, as ever
        apart = False
    if apart:
        return math.fsum(float(p.area) for p in pieces)
    return float(shapely.union_all(pieces).area)


def _site(boundary: Boundary, site: SiteOutlines | None) -> SiteOutlines:
    return SiteOutlines(boundary) if site is None else site


def _percent(area: float, site: SiteOutlines) -> float:
    return round2(100 * area / site.area)


def edp_overlaps(
    boundary: Boundary, edps: Sequence[EdpPolygon], site: SiteOutlines | None = None
) -> tuple[EdpOverlap, ...]:
    """Each EDP (by id) the boundary meets, with the m² and % of the boundary inside it, by id.

    Met is any contact, as Defra's ``ST_Intersects``: an EDP touched only at its edge is listed
    with its area, 0 m², and counts towards ``multiple_edps``. ``site``: the boundary's
    ``SiteOutlines`` when other steps have asked about the same outlines.
    """
    site = _site(boundary, site)
    areas = edp_areas(site, edps)
    if not areas:
        return ()
    names = {e.edp_id: e.edp_name for e in reversed(edps)}  # the first polygon's name
    return tuple(
        EdpOverlap(
            edp_id=edp_id,
            edp_name=names[edp_id],
            overlap_m2=round2(area),
            overlap_percentage=_percent(area, site),
        )
        for edp_id, area in sorted(areas.items())
    )


def edp_areas(site: SiteOutlines, edps: Sequence[EdpPolygon]) -> dict[int, float]:
    """{EDP id: m² of the boundary inside it, unrounded} for each EDP the boundary meets."""
    return _areas_by_key(site, ((e.edp_id, e.geometry) for e in edps))


def catchment_overlaps(
    boundary: Boundary, catchments: Sequence[NnCatchment], site: SiteOutlines | None = None
) -> tuple[CatchmentOverlap, ...]:
    """Each NN catchment (by label) with part of the boundary inside it, by label.

    A catchment is its polygons of one ``Label`` (two catchments of one N2K site are two), and
    its ``catchment_id`` the lowest ``OID`` among them (``catchment_ids``), as Defra lists them.
    """
    site = _site(boundary, site)
    areas = _areas_by_key(site, ((c.catchment_label, c.geometry) for c in catchments))
    if not areas:
        return ()
    ids = lowest_ids(catchments)
    return tuple(
        CatchmentOverlap(label=name, catchment_id=ids[name], overlap_percentage=_percent(a, site))
        for name, a in sorted(areas.items())
        if a > 0
    )


def excluded_areas_met(
    boundary: Boundary, areas: Sequence[ExcludedArea], site: SiteOutlines | None = None
) -> tuple[str, ...]:
    """Names of the excluded areas the boundary's interior meets, sorted ("" for unnamed)."""
    if not areas:
        return ()
    met = _areas_by_key(_site(boundary, site), ((a.name, a.geometry) for a in areas))
    return tuple(sorted(str(name) for name, area in met.items() if area > MIN_OVERLAP_M2))
