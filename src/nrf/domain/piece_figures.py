"""A site's land-use pieces in bulk: the scalar rules of land_use, bit for bit, over arrays.

numpy's float64 +, −, × and ÷ are the same IEEE operations as Python's, so applying the
scalar formula element by element, in the same order, gives every figure to the last bit;
the only care needed is rounding (``round2``), done below exactly as Python's ``round``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.domain.model import Boundary
from nrf.domain.rules import RuleSet


def intersecting(boundary: Boundary, geoms: NDArray[np.object_]) -> NDArray[np.bool_]:
    """Which of ``geoms`` intersect ``boundary``: the exact predicate, site prepared once.

    Preparing the site indexes its edges once for all the candidates instead of once per
    candidate; the predicate is the same exact test either way. The site is left unprepared
    afterwards (as received), unless its caller had prepared it.
    """
    if len(geoms) < 2 or shapely.is_prepared(boundary):
        return np.asarray(shapely.intersects(boundary, geoms), dtype=bool)
    shapely.prepare(boundary)
    try:
        return np.asarray(shapely.intersects(boundary, geoms), dtype=bool)
    finally:
        shapely.destroy_prepared(boundary)


def round2_array(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """``round2`` of each value: ``round(v * 100.0) / 100.0`` for finite v, else v.

    ``np.rint`` rounds half to even like Python's ``round``; Python's gives an int, so a
    result of zero is +0.0 where ``np.rint`` keeps the sign of a small negative (-0.0):
    adding 0.0 turns -0.0 into +0.0 and leaves every other value as it is. Infinities and
    NaN pass through both ways unchanged.
    """
    return (np.rint(values * 100.0) + 0.0) / 100.0


def piece_uplifts(
    current: Sequence[float | None],
    resi: Sequence[float | None],
    greenspace_coeff: float,
    area_ha: NDArray[np.float64],
    greenspace: bool,
    rules: RuleSet,
) -> list[float | None]:
    """``land_use.piece_uplift`` for every piece at once (None where a coefficient is missing)."""
    missing = [c is None or r is None for c, r in zip(current, resi, strict=True)]
    cur = np.array(current, dtype=float)
    adjusted = np.array(resi, dtype=float)
    if greenspace:
        # The scalar rule's operations, in its order: resi × (1 − f) + f × greenspace.
        fraction = rules.greenspace_percent / 100
        adjusted = adjusted * (1 - fraction) + fraction * greenspace_coeff
    rounded = round2_array((adjusted - cur) * area_ha).tolist()
    return [None if m else v for m, v in zip(missing, rounded, strict=True)]
