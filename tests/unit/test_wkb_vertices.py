"""wkb_vertices: a geometry's vertices counted from its WKB, in each dimension and byte order."""

from __future__ import annotations

from typing import Literal

import pytest
import shapely

from nrf.adapters.site_boundaries.wkb_vertices import wkb_vertices

SQUARE = [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)]
SQUARE_Z = [(x, y, 7) for x, y in SQUARE]
TWO_SQUARES_Z = shapely.MultiPolygon(
    [shapely.Polygon(SQUARE_Z), shapely.Polygon([(x + 5, y, z) for x, y, z in SQUARE_Z])]
)


@pytest.mark.parametrize("flavor", ["iso", "extended"])
@pytest.mark.parametrize("byte_order", [0, 1])
def test_two_3d_squares_have_ten_vertices_in_each_form(
    flavor: Literal["iso", "extended"], byte_order: int
) -> None:
    # Each square's 5 points of 24 bytes: a walk with the wrong stride for Z (16 bytes) would
    # lose its place before the second square and miscount or give up.
    data = shapely.to_wkb(TWO_SQUARES_Z, flavor=flavor, byte_order=byte_order)
    assert wkb_vertices(data, 0, cap=1_000) == 10


def test_a_line_and_a_point_count_each_vertex() -> None:
    data = shapely.to_wkb(
        shapely.GeometryCollection([shapely.LineString(SQUARE), shapely.Point(3, 3)])
    )
    assert wkb_vertices(data, 0, cap=1_000) == 6


def test_the_walk_stops_once_past_the_cap() -> None:
    many = shapely.MultiPolygon(
        [shapely.Polygon([(x + 5 * n, y) for x, y in SQUARE]) for n in range(9)]
    )
    data = shapely.to_wkb(many)
    assert wkb_vertices(data, 0, cap=1_000) == 45
    assert wkb_vertices(data, 0, cap=12) == 15  # three squares read, then it stops


def test_bytes_cut_short_are_not_counted() -> None:
    data = shapely.to_wkb(shapely.Polygon(SQUARE))
    assert wkb_vertices(data[:-8], 0, cap=1_000) is None
