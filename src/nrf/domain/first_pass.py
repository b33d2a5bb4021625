"""A window's exact predicates asked of GEOS once per layer for every site, not site by site.

Which parcels each site meets and which lie wholly inside it, and which works, LPA and
subcatchment zones it meets: the same predicates each site would ask alone (so the same
answers), but one vectorised call over every (site, feature) pair of the window, where 245
sites asked alone made ~1,000 small calls whose own cost was ~5 % of a batch (issue 32).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from attrs import field, frozen
from numpy.typing import NDArray

from nrf.domain.land_use import Piece
from nrf.domain.majority import majority_of_hits
from nrf.domain.model import Boundary, SiteReferenceData, Zone
from nrf.domain.rounding import round2
from nrf.domain.rules import RuleSet
from nrf.domain.site_outlines import SiteOutlines
from nrf.domain.window_pieces import Meetings, slices_of, window_pieces


@frozen(kw_only=True)
class FirstPass:
    """One site's answers: its three majority zones, its land-use pieces, its outlines."""

    wwtw: str | int | None
    lpa: str | int | None
    subcatchment: str | int | None
    # Its land-use pieces and its outlines told about its catchments (``window_pieces``).
    pieces: list[Piece] | None = field(eq=False, repr=False, default=None)
    outlines: SiteOutlines | None = field(eq=False, repr=False, default=None)


def _majorities(
    boundaries: NDArray[np.object_], layers: Sequence[Sequence[Zone]]
) -> list[str | int | None]:
    """``majority_value`` of each site against its own zones, one intersects call in all."""
    counts = [len(zones) for zones in layers]
    geoms = np.array([z.geometry for zones in layers for z in zones], dtype=object)
    meets = shapely.intersects(geoms, np.repeat(boundaries, counts))
    return [
        majority_of_hits(boundary, zones, meets[part])
        for boundary, zones, part in zip(boundaries, layers, slices_of(counts), strict=True)
    ]


def _parcels(boundaries: NDArray[np.object_], refs: Sequence[SiteReferenceData]) -> list[Meetings]:
    """``meeting_and_inside`` of each site and its parcels, each site prepared once."""
    counts = [len(ref.coefficients) for ref in refs]
    empty = np.empty(0, dtype=object)
    geoms = np.concatenate([empty, *(ref.coefficients.geometries for ref in refs)])
    fresh = boundaries[~shapely.is_prepared(boundaries)]
    shapely.prepare(fresh)
    try:
        sites = np.repeat(boundaries, counts)
        meets = shapely.intersects(sites, geoms)
        met = np.flatnonzero(meets)
        inside = np.zeros(len(geoms), dtype=bool)
        inside[met] = shapely.contains_properly(sites[met], geoms[met])
    finally:
        shapely.destroy_prepared(fresh)
    out: list[Meetings] = []
    for part in slices_of(counts):
        hits = np.flatnonzero(meets[part])
        out.append((hits, inside[part][hits]))
    return out


def first_pass(
    boundaries: Sequence[Boundary], refs: Sequence[SiteReferenceData], rules: RuleSet
) -> list[FirstPass]:
    """Each site's ``FirstPass``, in the order given."""
    sites = np.empty(len(boundaries), dtype=object)
    sites[:] = list(boundaries)
    works = _majorities(sites, [ref.wwtw_catchments for ref in refs])
    lpas = _majorities(sites, [ref.lpa_boundaries for ref in refs])
    subcatchments = _majorities(sites, [ref.subcatchments for ref in refs])
    parcels = _parcels(sites, refs)
    areas_ha = [round2(b.area / rules.m2_per_ha) for b in boundaries]
    pieces, outlines = window_pieces(boundaries, refs, parcels, areas_ha, rules)
    return [
        FirstPass(
            wwtw=wwtw,
            lpa=lpa,
            subcatchment=sub,
            pieces=made,
            outlines=told,
        )
        for wwtw, lpa, sub, made, told in zip(
            works, lpas, subcatchments, pieces, outlines, strict=True
        )
    ]
