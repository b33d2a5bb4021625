"""Z and M values are dropped from delivered geometries, and each dropped one is listed.

A bundle is two-dimensional (its layers declare z = 0, m = 0) and every figure comes from plan
areas, which a height or a measure does not change; so dropping them keeps the meaning
exactly, and the report lists every feature that had them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.bundles.qc.report import QcReport


def flattened(
    layer: str, keys: Sequence[object], geoms: NDArray[np.object_], report: QcReport
) -> NDArray[np.object_]:
    """``geoms`` in two dimensions; each feature that had Z or M is listed as cleaned."""
    present = ~shapely.is_missing(geoms)
    z = np.zeros(len(geoms), dtype=bool)
    m = np.zeros(len(geoms), dtype=bool)
    z[present] = shapely.has_z(geoms[present])
    m[present] = shapely.has_m(geoms[present])
    extra = z | m
    if not extra.any():
        return geoms
    for i in np.flatnonzero(extra):
        what = " and ".join(d for d, has in (("Z", z[i]), ("M", m[i])) if has)
        report.add("cleaned", layer, keys[int(i)], f"{what} values dropped (the bundle is 2D)")
    out = geoms.copy()
    out[extra] = shapely.force_2d(geoms[extra])
    return out
