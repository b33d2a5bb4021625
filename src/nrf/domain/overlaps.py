"""How much of a boundary lies in each NN catchment and EDP: summed per name, never per polygon.

A catchment drawn as several polygons is one catchment to a planner, so overlaps are summed
by name (with ``math.fsum``, so the order the polygons were read in cannot change the sum),
and listed by name so the answer is the same whatever that order was.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from attrs import frozen

from nrf.domain.catchment_ids import lowest
from nrf.domain.model import Boundary, NnCatchment
from nrf.domain.rounding import round2


@frozen(kw_only=True)
class Overlap:
    """The part of a boundary inside one catchment or EDP: hectares and % of the boundary."""

    name: str
    edp_id: str
    area_ha: float
    share_percent: float


def catchment_and_edp_areas(
    boundary: Boundary, catchments: Sequence[NnCatchment], m2_per_ha: float = 10_000.0
) -> tuple[tuple[Overlap, ...], tuple[Overlap, ...]]:
    """(per N2K site, per OID) overlaps of positive area, each sorted by name; a site's id is
    the lowest OID of its polygons."""
    if not catchments or boundary.area == 0:
        return (), ()
    geoms = np.array([c.geometry for c in catchments], dtype=object)
    hits = np.flatnonzero(shapely.intersects(geoms, boundary))
    areas = shapely.area(shapely.intersection(geoms[hits], boundary)) if hits.size else []
    by_name: dict[str, list[float]] = {}
    oids: dict[str, list[str]] = {}
    by_edp: dict[str, list[float]] = {}
    for index, area in zip(hits.tolist(), list(areas), strict=True):
        if area > 0:
            c = catchments[index]
            by_name.setdefault(c.n2k_site_name, []).append(float(area))
            oids.setdefault(c.n2k_site_name, []).append(c.edp_id)
            by_edp.setdefault(c.edp_id, []).append(float(area))

    def overlap(name: str, edp: str, parts: list[float]) -> Overlap:
        total = math.fsum(parts)
        share = round2(100 * total / boundary.area)
        area_ha = round2(total / m2_per_ha)
        return Overlap(name=name, edp_id=edp, area_ha=area_ha, share_percent=share)

    per_catchment = tuple(
        overlap(n, lowest(oids[n]), parts) for n, parts in sorted(by_name.items())
    )
    per_edp = tuple(overlap(e, e, parts) for e, parts in sorted(by_edp.items()))
    return per_catchment, per_edp
