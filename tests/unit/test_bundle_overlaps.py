"""Overlapping coefficient polygons are found, measured, and counted once across tiles."""

from __future__ import annotations

import numpy as np
from shapely.geometry import box

from nrf.bundles.qc.overlaps import Tile, overlapping_pairs


def grid() -> list:
    return [box(x, y, x + 10, y + 10) for y in range(0, 30, 10) for x in range(0, 30, 10)]


def test_a_clean_tiling_has_no_overlaps() -> None:
    geoms = np.asarray(grid(), dtype=object)
    assert overlapping_pairs(geoms, Tile(x0=0, y0=0, x1=31, y1=31)) == []


def test_overlaps_are_paired_with_their_area() -> None:
    cells = grid()
    # index 9: 4 x 4 inside cell 4 (10-20, 10-20); index 10: a copy of cell 0.
    geoms = np.asarray([*cells, box(12, 12, 16, 16), box(0, 0, 10, 10)], dtype=object)
    found = overlapping_pairs(geoms, Tile(x0=0, y0=0, x1=31, y1=31))
    assert found == [(0, 10, 100.0), (4, 9, 16.0)]


def test_a_pair_is_counted_by_the_one_tile_holding_its_lower_left_corner() -> None:
    # Two squares overlapping over x 8-12, y 0-10; the bbox intersection starts at (8, 0).
    geoms = np.asarray([box(0, 0, 12, 10), box(8, 0, 20, 10)], dtype=object)
    left, right = Tile(x0=0, y0=0, x1=10, y1=50), Tile(x0=10, y0=0, x1=30, y1=50)
    assert overlapping_pairs(geoms, left) == [(0, 1, 40.0)]  # 4 m x 10 m
    assert overlapping_pairs(geoms, right) == []


def test_touching_is_not_overlapping() -> None:
    geoms = np.asarray([box(0, 0, 10, 10), box(10, 0, 20, 10), box(5, 10, 15, 20)], dtype=object)
    assert overlapping_pairs(geoms, Tile(x0=0, y0=0, x1=30, y1=30)) == []
