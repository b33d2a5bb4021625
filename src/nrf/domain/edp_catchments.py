"""The NN catchments inside each EDP a boundary meets, as shares of the whole boundary.

nrf's own boundary check (``POST /v1/boundary-checks``) lists, under each EDP, the catchments
the boundary meets inside that EDP, with the same denominator as the EDP's own share (the
boundary's area), so the shares under one EDP add up to that EDP's share. (Defra's newest
``/check-boundary`` puts the boundary's whole list under every EDP; nrf's drop-in route does
too.) A catchment is its polygons of one label, dissolved, never summed, so an overlap between
two of them is not counted twice.
"""

from __future__ import annotations

from collections.abc import Sequence

import shapely

from nrf.domain.catchment_ids import lowest_ids
from nrf.domain.model import Boundary, EdpPolygon, NnCatchment
from nrf.domain.results import CatchmentOverlap
from nrf.domain.rounding import round2


def catchments_by_edp(
    boundary: Boundary,
    edp_ids: Sequence[int],
    edps: Sequence[EdpPolygon],
    catchments: Sequence[NnCatchment],
) -> dict[int, tuple[CatchmentOverlap, ...]]:
    """{EDP id: its catchments, by label, with the % of the boundary in both}, for each id."""
    ids = lowest_ids(catchments)
    answer: dict[int, tuple[CatchmentOverlap, ...]] = {}
    for edp_id in edp_ids:
        polygons = [e.geometry for e in edps if e.edp_id == edp_id]
        found: list[CatchmentOverlap] = []
        if polygons and boundary.area > 0:
            part = shapely.intersection(shapely.union_all(polygons), boundary)
            for name in sorted(ids):
                pieces = [
                    shapely.intersection(c.geometry, part)
                    for c in catchments
                    if c.catchment_label == name
                ]
                area = float(shapely.union_all(pieces).area)
                if area > 0:
                    found.append(
                        CatchmentOverlap(
                            label=name,
                            catchment_id=ids[name],
                            overlap_percentage=round2(100 * area / boundary.area),
                        )
                    )
        answer[edp_id] = tuple(found)
    return answer
