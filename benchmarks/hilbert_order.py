"""Hilbert-curve keys of points on a fixed 1 m grid, to store parcels near each other together.

A site's parcels are read by one R-tree query; when the rows that answer it lie on a few
neighbouring pages (and the R-tree was filled in the same order, so its nodes are tight), the
query touches a few pages, not one page per parcel scattered through a 2 GB file. The Hilbert
curve keeps neighbours closer than row-by-row order does. The grid is fixed (whole metres
from the origin, 2^21 m a side: all of Great Britain in any of its metric grids), so a key
never depends on which other parcels a delivery holds, and a build can stream.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

BITS = 21  # 2,097,152 m a side; keys below 4^21 = 2^42 fit an int64
_SIDE = 1 << BITS


def hilbert_keys(x: ArrayLike, y: ArrayLike) -> NDArray[np.int64]:
    """The Hilbert index of each point (x, y) in metres; points off the grid are clamped."""
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    xi = np.clip(np.nan_to_num(np.floor(xs)), 0, _SIDE - 1).astype(np.int64)
    yi = np.clip(np.nan_to_num(np.floor(ys)), 0, _SIDE - 1).astype(np.int64)
    keys = np.zeros(xi.shape, dtype=np.int64)
    s = _SIDE >> 1
    while s:
        rx = (xi & s) > 0
        ry = (yi & s) > 0
        keys += s * s * ((3 * rx.astype(np.int64)) ^ ry.astype(np.int64))
        # Rotate the quadrant so the curve's lower levels join up end to end.
        flip = ~ry & rx
        xi = np.where(flip, _SIDE - 1 - xi, xi)
        yi = np.where(flip, _SIDE - 1 - yi, yi)
        swap = ~ry
        xi, yi = np.where(swap, yi, xi), np.where(swap, xi, yi)
        s >>= 1
    return keys
