"""Land-use uplift: site ∩ coefficient polygon ∩ NN catchment, one rounded figure per piece."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import shapely
from attrs import frozen

from nrf.domain.model import (
    Boundary,
    CoefficientParcels,
    CoefficientPolygon,
    NnCatchment,
    as_parcels,
)
from nrf.domain.prepared_site import meeting_and_inside
from nrf.domain.rounding import round2
from nrf.domain.rules import RuleSet
from nrf.domain.site_outlines import CLIP_FROM_VERTICES, SiteOutlines

_POLYGONAL = (int(shapely.GeometryType.POLYGON), int(shapely.GeometryType.MULTIPOLYGON))


@frozen(kw_only=True)
class Piece:
    """One piece of a site inside one coefficient polygon and one NN catchment."""

    n2k_site_name: str
    edp_id: str
    area_ha: float
    n_uplift: float | None  # None where the coefficient polygon has no N values
    p_uplift: float | None


def _adjusted_resi(resi: float, greenspace_coeff: float, rules: RuleSet) -> float:
    # Same operation order as the published tool, so the binary result is identical.
    fraction = rules.greenspace_percent / 100
    return resi * (1 - fraction) + fraction * greenspace_coeff


def piece_uplift(
    current: float | None,
    resi: float | None,
    greenspace_coeff: float,
    area_ha: float,
    greenspace: bool,
    rules: RuleSet,
) -> float | None:
    """round2((resi' − current) × area) for one piece; None when a coefficient is missing."""
    if current is None or resi is None:
        return None
    adjusted = _adjusted_resi(resi, greenspace_coeff, rules) if greenspace else resi
    return round2((adjusted - current) * area_ha)


def greenspace_applies(dev_area_ha: float, rules: RuleSet) -> bool:
    """The greenspace adjustment uses the site area already rounded to 2 dp."""
    return rules.greenspace_enabled and dev_area_ha >= rules.greenspace_threshold_ha


# Long: the overlay's fast path (catchments that hold the whole site) and general path together.
def piece_areas(
    parts: np.ndarray,
    catchments: np.ndarray,
    holds_site: np.ndarray | None = None,
    within_site: Callable[[shapely.Geometry], shapely.Geometry] | None = None,
) -> np.ndarray:
    """area(part ∩ catchment) for every (part, catchment) pair, as GEOS's overlay gives it.

    A part lying strictly inside a catchment is its own piece there, and its area is the
    part's own: no overlay (issue 20). The overlay would only rebuild the part's rings, and
    its area could differ from the part's in the last bits, never a figure at 2 dp
    (tests/unit/test_inside_shortcut.py, ``benchmarks.penny_check``). A part that does not
    touch a catchment has no piece there; only parts that cross a catchment's edge are
    overlaid.
    ``holds_site`` marks the catchments whose interior holds the whole site: every part of
    the site lies strictly inside those, so they are not tested part by part.
    ``within_site`` gives a catchment's part inside the site (``SiteOutlines.part_inside``):
    a part crossing a detailed catchment's edge is then overlaid with that small polygon, cut once
    per site and shared with the catchment and EDP shares, instead of the catchment, whose
    every vertex GEOS would clip again for each part (about five times the cost). As the
    part lies in the site, part ∩ (catchment ∩ site) is part ∩ catchment; its area may
    differ in the last bits (issue 20), never at 2 dp (``benchmarks.penny_check``).
    """
    areas = np.zeros((len(parts), len(catchments)))
    if len(parts) == 0 or len(catchments) == 0:
        return areas
    held_whole = np.zeros(len(catchments), dtype=bool) if holds_site is None else holds_site
    if held_whole.all():
        # Most sites: every catchment met holds the whole site, so every part that is not
        # empty is its own piece in each of them. The same answer as the general path below.
        present = ~shapely.is_empty(parts)
        areas[present] = shapely.area(parts[present])[:, np.newaxis]
        return areas
    touching = np.zeros(areas.shape, dtype=bool)
    inside = np.zeros(areas.shape, dtype=bool)
    rest = np.flatnonzero(~held_whole)
    if rest.size:
        others = catchments[rest]
        shapely.prepare(others)  # once per catchment object: later calls return at once
        meets = shapely.intersects(others[np.newaxis, :], parts[:, np.newaxis])
        touching[:, rest] = meets
        inside[:, rest] = meets & shapely.contains_properly(
            others[np.newaxis, :], parts[:, np.newaxis]
        )
    if held_whole.any():
        # An empty part (a parcel met at a point) touches nothing, as the test would say.
        present = ~shapely.is_empty(parts)
        touching[:, held_whole] = present[:, np.newaxis]
        inside[:, held_whole] = present[:, np.newaxis]
    if not touching.any():
        return areas
    # A part's own area does not depend on the catchment: once per part, whichever holds it.
    held = np.flatnonzero(inside.any(axis=1))
    if held.size:
        own_area = shapely.area(parts[held])
        areas[held] = np.where(inside[held], own_area[:, np.newaxis], 0.0)
    rows, cols = np.nonzero(touching & ~inside)
    if rows.size:
        others = catchments
        if within_site is not None:
            others = _cut_to_site(catchments, np.unique(cols), within_site)
        areas[rows, cols] = shapely.area(shapely.intersection(parts[rows], others[cols]))
    return areas


def _cut_to_site(
    catchments: np.ndarray,
    crossed: np.ndarray,
    within_site: Callable[[shapely.Geometry], shapely.Geometry],
) -> np.ndarray:
    """The catchments, each crossed detailed one replaced by its part inside the site.

    A catchment of few vertices is cheaper to overlay than to cut first, so it stays; so does
    one whose part inside the site is not polygonal (the site meets it along a line as well):
    GEOS overlays no mixed collections.
    """
    others = catchments.copy()
    for j in crossed.tolist():
        if shapely.get_num_coordinates(catchments[j]) < CLIP_FROM_VERTICES:
            continue
        piece = within_site(catchments[j])
        if shapely.get_type_id(piece) in _POLYGONAL:
            others[j] = piece
    return others


# Long: one site's overlays and pieces in one sequence (a window takes window_pieces).
def land_use_pieces(
    boundary: Boundary,
    coefficients: CoefficientParcels | Sequence[CoefficientPolygon],
    catchments: Sequence[NnCatchment],
    dev_area_ha: float,
    rules: RuleSet,
    site: SiteOutlines | None = None,
) -> list[Piece]:
    """Every piece of positive area, in coefficient order then catchment order.

    ``site``: the boundary's ``SiteOutlines``, so the catchments the site meets are found once
    for this step and the catchment and EDP shares alike. A window of sites takes
    ``window_pieces`` instead, which gives the same pieces.
    """
    if not coefficients or not catchments:
        return []
    site = SiteOutlines(boundary) if site is None else site
    nn_geoms = np.array([c.geometry for c in catchments], dtype=object)
    nn_hits = np.flatnonzero(site.meets(nn_geoms))
    if nn_hits.size == 0:
        return []
    parcels = as_parcels(coefficients)
    coef_geoms = parcels.geometries
    coef_hits, wholly_inside = meeting_and_inside(boundary, coef_geoms)
    if coef_hits.size == 0:
        return []
    # (site ∩ coefficient) ∩ catchment, the order the published tool intersects in. A
    # parcel wholly inside the site is its own part, without the overlay: its area may
    # differ from the overlay's rebuilt rings in the last bits, never at 2 dp (issue 20,
    # scripts/penny_check).
    site_parts = coef_geoms[coef_hits]
    cut = ~wholly_inside
    if cut.any():
        site_parts = site_parts.copy()
        site_parts[cut] = shapely.intersection(boundary, site_parts[cut])
    greenspace = greenspace_applies(dev_area_ha, rules)
    # A catchment whose interior holds the whole site holds every part of it: one test of
    # the site (shared with the catchment and EDP shares) instead of one per part.
    met = nn_geoms[nn_hits]
    holds_site = np.fromiter(map(site.wholly_inside, met), dtype=bool, count=len(met))
    areas_m2 = piece_areas(site_parts, met, holds_site, site.part_inside)
    gn, gp = rules.greenspace_n_coeff, rules.greenspace_p_coeff
    pieces: list[Piece] = []
    parts, columns = np.nonzero(areas_m2 > 0.0)
    for part_index, nn_pos, area_m2 in zip(
        coef_hits[parts].tolist(), columns.tolist(), areas_m2[parts, columns].tolist(), strict=True
    ):
        curr_n, curr_p, resi_n, resi_p = parcels.values[part_index]
        nn = catchments[int(nn_hits[nn_pos])]
        area_ha = area_m2 / rules.m2_per_ha
        pieces.append(
            Piece(
                n2k_site_name=nn.n2k_site_name,
                edp_id=nn.edp_id,
                area_ha=area_ha,
                n_uplift=piece_uplift(curr_n, resi_n, gn, area_ha, greenspace, rules),
                p_uplift=piece_uplift(curr_p, resi_p, gp, area_ha, greenspace, rules),
            )
        )
    return pieces


def suds_applies(dwellings: int, rules: RuleSet) -> bool:
    return dwellings >= rules.suds_min_dwellings


def post_suds(uplift: float, dwellings: int, rules: RuleSet) -> float:
    """round2(uplift − |uplift| × removal) where SuDS applies, else round2(uplift).

    A negative uplift becomes more negative: the published tool does this on purpose.
    """
    if not suds_applies(dwellings, rules):
        return round2(uplift)
    return round2(uplift - abs(uplift) * (rules.suds_removal_percent / 100))
