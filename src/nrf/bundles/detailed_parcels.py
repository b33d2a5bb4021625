"""Field parcels of 5-30 vertices that tile the grid: every shared edge bends 0-6 times.

The same grid and corners as ``synthetic_parcels`` (5-8 vertices, kept for the quick bundle);
here each edge between two corners carries up to six extra vertices, drawn once per edge so
both neighbours agree. Points sit in the middle 60 % of the edge, in order along it, pushed
sideways by at most 4 % of the smaller neighbouring cell, so no ring can cross itself.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.bundles.synthetic_parcels import ParcelGrid, _Lines

MAX_BENDS = 6
# Chance of 0..6 extra vertices on one edge: most field edges are nearly straight.
_BEND_P = np.array([0.45, 0.25, 0.12, 0.08, 0.05, 0.03, 0.02])
_BEND = 0.04
_H_EDGE, _V_EDGE = 12, 13

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def _edge_points(
    rng: np.random.Generator, n_edges: int, room: FloatArray | float
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Per edge: bend count, positions along it (n, 6) and sideways offsets (n, 6)."""
    r = rng.random((n_edges, 1 + 2 * MAX_BENDS))
    count = np.searchsorted(np.cumsum(_BEND_P), r[:, 0] * 0.999999, side="right")
    k = np.arange(MAX_BENDS)
    step = 1.0 / np.maximum(count, 1)[:, None]
    t = 0.2 + 0.6 * step * (k + 0.5 + 0.8 * (r[:, 1 : 1 + MAX_BENDS] - 0.5))
    room_arr = np.broadcast_to(np.asarray(room, dtype=float), (n_edges,))[:, None]
    offset = (2 * r[:, 1 + MAX_BENDS :] - 1) * _BEND * room_arr
    return count.astype(np.int64), t, offset


def parcel_rows_detailed(
    grid: ParcelGrid, rows_per_chunk: int
) -> Iterator[tuple[int, NDArray[np.object_]]]:
    """Yield (first row, polygons) for consecutive chunks of grid rows, row-major order."""
    lines = _Lines(grid)
    for a in range(0, lines.nrows, rows_per_chunk):
        b = min(a + rows_per_chunk, lines.nrows)
        yield a, _chunk(lines, a, b)


def _h(lines: _Lines, i: int) -> tuple[IntArray, FloatArray, FloatArray]:
    rng = np.random.default_rng([lines.grid.seed, _H_EDGE, i])
    return _edge_points(rng, lines.ncols, lines.y_room[i])


def _v(lines: _Lines, i: int) -> tuple[IntArray, FloatArray, FloatArray]:
    rng = np.random.default_rng([lines.grid.seed, _V_EDGE, i])
    return _edge_points(rng, lines.ncols + 1, lines.x_room)


def _chunk(lines: _Lines, a: int, b: int) -> NDArray[np.object_]:
    rows = b - a
    corners = np.stack([lines.corners(i) for i in range(a, b + 1)])  # (R+1, nc+1, 2)
    h = [_h(lines, i) for i in range(a, min(b + 2, lines.nrows + 1))]
    v = [_v(lines, i) for i in range(a, min(b + 1, lines.nrows))]
    h_n = np.stack([e[0] for e in h])
    v_n = np.stack([e[0] for e in v])
    # A parcel with no bend on any edge bends its bottom edge once (so >= 5 vertices); the
    # parcel below sees the same edge. Needs the next row's raw edges, hence b + 2 lines.
    lacking = (h_n[:-1] == 0) & (h_n[1:] == 0) & (v_n[:, :-1] == 0) & (v_n[:, 1:] == 0)
    h_count = h_n[: rows + 1].copy()
    h_count[: len(lacking)] = np.maximum(h_count[: len(lacking)], lacking)
    v_count = v_n[:rows]
    k = np.arange(MAX_BENDS)
    h_t = np.stack([e[1] for e in h])[: rows + 1, :, :, None]  # (R+1, nc, 6, 1)
    h_pts = corners[:, :-1, None] + h_t * (corners[:, 1:, None] - corners[:, :-1, None])
    h_pts[..., 1] += np.stack([e[2] for e in h])[: rows + 1]
    v_t = np.stack([e[1] for e in v])[:rows, :, :, None]  # (R, nc+1, 6, 1)
    v_pts = corners[:-1, :, None] + v_t * (corners[1:, :, None] - corners[:-1, :, None])
    v_pts[..., 0] += np.stack([e[2] for e in v])[:rows]
    h_on = k < h_count[..., None]  # (R+1, nc, 6)
    v_on = k < v_count[..., None]  # (R, nc+1, 6)
    one = np.ones((rows, lines.ncols, 1), dtype=bool)
    # Counter-clockwise: BL, bottom (left to right), BR, right (up), TR, top (right to
    # left), TL, left (down).
    slots = np.concatenate(
        [
            corners[:-1, :-1, None],
            h_pts[:-1],
            corners[:-1, 1:, None],
            v_pts[:, 1:],
            corners[1:, 1:, None],
            h_pts[1:, :, ::-1],
            corners[1:, :-1, None],
            v_pts[:, :-1, ::-1],
        ],
        axis=2,
    )  # (R, nc, 28, 2)
    present = np.concatenate(
        [one, h_on[:-1], one, v_on[:, 1:], one, h_on[1:, :, ::-1], one, v_on[:, :-1, ::-1]],
        axis=2,
    )
    coords = slots[present]
    parcel_of_vertex = np.repeat(np.arange(rows * lines.ncols), present.sum(axis=2).ravel())
    rings = shapely.linearrings(coords, indices=parcel_of_vertex)
    return np.asarray(shapely.polygons(rings), dtype=object)
