"""Field-parcel-like polygons of 5-8 vertices that tile a rectangle without gaps or overlaps."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import shapely
from attrs import field, frozen
from numpy.typing import NDArray

# Column widths and row heights (m) stay in this range, so parcels are ~1.5-18 ha before the
# corners move; corner jitter and edge bends are small fractions of the neighbouring cells.
MIN_SIDE = 122.0
MAX_SIDE = 425.0
_CORNER_JITTER = 0.05
_BEND = 0.04
_CORNER, _H_EDGE, _V_EDGE, _COEFF = 1, 2, 3, 4

FloatArray = NDArray[np.float64]


@frozen(kw_only=True)
class ParcelGrid:
    """Column widths and row heights of a grid anchored at (x0, y0); cells become parcels."""

    x0: float
    y0: float
    widths: FloatArray = field(eq=False, repr=False)
    heights: FloatArray = field(eq=False, repr=False)
    seed: int

    @property
    def count(self) -> int:
        return len(self.widths) * len(self.heights)

    @property
    def extent(self) -> tuple[float, float, float, float]:
        return (
            self.x0,
            self.y0,
            self.x0 + float(self.widths.sum()),
            self.y0 + float(self.heights.sum()),
        )


def side_lengths(rng: np.random.Generator, n: int, mean: float) -> FloatArray:
    """``n`` sides in [MIN_SIDE, MAX_SIDE] averaging ``mean``.

    MIN + span * u**k with u uniform has mean MIN + span / (k + 1), which fixes k.
    """
    if not MIN_SIDE < mean < MAX_SIDE:
        raise ValueError(f"mean parcel side {mean:.0f} m outside ({MIN_SIDE}, {MAX_SIDE})")
    span = MAX_SIDE - MIN_SIDE
    k = span / (mean - MIN_SIDE) - 1.0
    return MIN_SIDE + span * rng.random(n) ** k


def fitted_sides(rng: np.random.Generator, length: float, mean: float) -> FloatArray:
    """Sides that add up to ``length`` exactly, drawn around ``mean`` then scaled."""
    n = max(1, round(length / mean))
    sides = side_lengths(rng, n, mean)
    return sides * (length / sides.sum())


def _rng(seed: int, kind: int, row: int) -> np.random.Generator:
    # One generator per grid row and purpose, so chunking never changes the result.
    return np.random.default_rng([seed, kind, row])


def _neighbour_min(sides: FloatArray) -> FloatArray:
    """Per grid line, the smaller of the two cells it separates; 0 on the outer lines."""
    out = np.zeros(len(sides) + 1)
    out[1:-1] = np.minimum(sides[:-1], sides[1:])
    return out


class _Lines:
    """Shared geometry of the grid lines: jittered corners and bent edges."""

    def __init__(self, grid: ParcelGrid) -> None:
        self.grid = grid
        self.xs = grid.x0 + np.concatenate([[0.0], np.cumsum(grid.widths)])
        self.ys = grid.y0 + np.concatenate([[0.0], np.cumsum(grid.heights)])
        self.x_room = _neighbour_min(grid.widths)
        self.y_room = _neighbour_min(grid.heights)
        self.ncols = len(grid.widths)
        self.nrows = len(grid.heights)

    def corners(self, i: int) -> FloatArray:
        """(ncols+1, 2) corners of grid line ``i``; outer corners only slide along the edge."""
        r = _rng(self.grid.seed, _CORNER, i).uniform(-1.0, 1.0, (self.ncols + 1, 2))
        x = self.xs + r[:, 0] * _CORNER_JITTER * self.x_room
        y = self.ys[i] + r[:, 1] * _CORNER_JITTER * self.y_room[i]
        return np.column_stack([x, y])

    def h_edges(self, i: int) -> tuple[NDArray[np.bool_], FloatArray, FloatArray]:
        """Raw bend flag, position along the edge and sideways offset of line ``i``'s edges."""
        r = _rng(self.grid.seed, _H_EDGE, i).random((self.ncols, 3))
        return r[:, 0] < 0.5, 0.3 + 0.4 * r[:, 1], (2 * r[:, 2] - 1) * _BEND * self.y_room[i]

    def v_edges(self, i: int) -> tuple[NDArray[np.bool_], FloatArray, FloatArray]:
        """The same for the vertical edges between grid lines ``i`` and ``i + 1``."""
        r = _rng(self.grid.seed, _V_EDGE, i).random((self.ncols + 1, 3))
        return r[:, 0] < 0.5, 0.3 + 0.4 * r[:, 1], (2 * r[:, 2] - 1) * _BEND * self.x_room


def parcel_rows(grid: ParcelGrid, rows_per_chunk: int) -> Iterator[tuple[int, NDArray[np.object_]]]:
    """Yield (first row, polygons) for consecutive chunks of grid rows, row-major order."""
    lines = _Lines(grid)
    for a in range(0, lines.nrows, rows_per_chunk):
        b = min(a + rows_per_chunk, lines.nrows)
        yield a, _chunk(lines, a, b)


def _chunk(lines: _Lines, a: int, b: int) -> NDArray[np.object_]:
    nc = lines.ncols
    corners = np.stack([lines.corners(i) for i in range(a, b + 1)])  # (R+1, nc+1, 2)
    h = [lines.h_edges(i) for i in range(a, min(b + 2, lines.nrows + 1))]
    v = [lines.v_edges(i) for i in range(a, min(b + 1, lines.nrows))]
    h_bit = np.stack([e[0] for e in h])
    v_bit = np.stack([e[0] for e in v])
    # A parcel with no bent edge bends its bottom edge; the parcel below then has one more
    # (at most four in all), so every parcel has 5-8 vertices and neighbours agree.
    lacking = ~(h_bit[:-1] | h_bit[1:] | v_bit[:, :-1] | v_bit[:, 1:])
    h_final = h_bit[: b - a + 1].copy()
    h_final[: len(lacking)] |= lacking
    h_t = np.stack([e[1] for e in h])[: b - a + 1, :, None]
    h_off = np.stack([e[2] for e in h])[: b - a + 1]
    h_pts = corners[:, :-1] + h_t * (corners[:, 1:] - corners[:, :-1])
    h_pts[..., 1] += h_off
    v_t = np.stack([e[1] for e in v])[: b - a, :, None]
    v_off = np.stack([e[2] for e in v])[: b - a]
    v_pts = corners[:-1] + v_t * (corners[1:] - corners[:-1])
    v_pts[..., 0] += v_off
    v_final = v_bit[: b - a]
    # Counter-clockwise slots: BL, bottom, BR, right, TR, top, TL, left.
    slots = np.stack(
        [
            corners[:-1, :-1],
            h_pts[:-1],
            corners[:-1, 1:],
            v_pts[:, 1:],
            corners[1:, 1:],
            h_pts[1:],
            corners[1:, :-1],
            v_pts[:, :-1],
        ],
        axis=2,
    )  # (R, nc, 8, 2)
    present = np.ones((b - a, nc, 8), dtype=bool)
    present[:, :, 1] = h_final[:-1]
    present[:, :, 3] = v_final[:, 1:]
    present[:, :, 5] = h_final[1:]
    present[:, :, 7] = v_final[:, :-1]
    coords = slots[present]
    parcel_of_vertex = np.repeat(np.arange(present.shape[0] * nc), present.sum(axis=2).ravel())
    rings = shapely.linearrings(coords, indices=parcel_of_vertex)
    return np.asarray(shapely.polygons(rings), dtype=object)


def coefficients(grid: ParcelGrid, a: int, b: int, null_share: float = 0.005) -> FloatArray:
    """(parcels, 4) lu_curr_n, lu_curr_p, n_resi, p_resi (kg/ha/yr); NaN rows are NULL rows."""
    nc = len(grid.widths)
    out = np.empty(((b - a) * nc, 4))
    lo = np.array([5.0, 0.1, 8.0, 0.3])
    hi = np.array([40.0, 2.5, 20.0, 1.5])
    for k, i in enumerate(range(a, b)):
        r = _rng(grid.seed, _COEFF, i).random((nc, 5))
        vals = np.round(lo + (hi - lo) * r[:, :4], 3)
        vals[r[:, 4] < null_share] = np.nan
        out[k * nc : (k + 1) * nc] = vals
    return out
