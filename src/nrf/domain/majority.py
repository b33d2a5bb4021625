"""Majority assignment: which attribute value covers most of a site."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.domain.model import Boundary, Zone


def majority_value(boundary: Boundary, zones: Sequence[Zone]) -> str | int | None:
    """Return the value whose polygons cover the largest total area of ``boundary``.

    Areas are summed per value (a works catchment drawn as several polygons
    counts as one), ties go to the smallest value so the answer never depends
    on the order the polygons were read in, and None means nothing intersects.
    """
    if not zones:
        return None
    geoms = np.array([z.geometry for z in zones], dtype=object)
    return majority_of_hits(boundary, zones, shapely.intersects(geoms, boundary))


def majority_of_hits(
    boundary: Boundary, zones: Sequence[Zone], meets: NDArray[np.bool_]
) -> str | int | None:
    """``majority_value`` once it is known which zones meet the site (``meets[i]``)."""
    hits = np.flatnonzero(meets)
    if hits.size == 0:
        return None
    values = {zones[i].value for i in hits.tolist()}
    if len(values) == 1:
        # One candidate value wins whatever its area: the overlay would change nothing.
        return values.pop()
    geoms = np.array([zones[i].geometry for i in hits.tolist()], dtype=object)
    areas = shapely.area(shapely.intersection(geoms, boundary))
    per_value: dict[str | int, list[float]] = {}
    for index, area in zip(hits.tolist(), areas.tolist(), strict=True):
        per_value.setdefault(zones[index].value, []).append(float(area))
    totals = {value: math.fsum(parts) for value, parts in per_value.items()}
    best = max(totals.values())
    winners = [value for value, total in totals.items() if total == best]
    return min(winners, key=lambda v: (isinstance(v, str), v))
