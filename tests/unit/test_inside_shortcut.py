"""The inside-the-catchment shortcut gives the full overlay's areas, to 1e-12 of themselves.

`piece_areas` takes a part lying strictly inside a catchment as its own piece, with its own
area, instead of overlaying it with the catchment (issue 20: the overlay only rebuilds the
part's rings, so the two differ in the last bits at most). Each case below is compared with
the plain GEOS overlay, part ∩ catchment, which is what the published order of operations
computes: the same pieces (a zero stays a zero) and areas within 1e-12 of each other.
"""

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import MultiPolygon, Polygon, box

from nrf.bundles.jagged_partition import jagged_ring
from nrf.domain.land_use import piece_areas


def plain(parts: list[shapely.Geometry], catchments: list[shapely.Geometry]) -> np.ndarray:
    """The reference: one full overlay per (part, catchment) pair, as a loop."""
    return np.array([[shapely.area(shapely.intersection(p, c)) for c in catchments] for p in parts])


def shortcut(parts: list[shapely.Geometry], catchments: list[shapely.Geometry]) -> np.ndarray:
    return piece_areas(np.array(parts, dtype=object), np.array(catchments, dtype=object))


def same(got: np.ndarray, want: np.ndarray) -> bool:
    """The same pieces, and every area within 1e-12 of the overlay's."""
    return bool(((got == 0) == (want == 0)).all() and np.allclose(got, want, rtol=1e-12, atol=0))


def fresh(geom: shapely.Geometry) -> shapely.Geometry:
    # A copy that is not prepared, so the reference never runs on a prepared geometry.
    return shapely.from_wkb(shapely.to_wkb(geom))


def star(rng: np.random.Generator, centre: tuple[float, float], radius: float) -> Polygon:
    k = int(rng.integers(5, 30))
    angles = np.sort(rng.uniform(0, 2 * math.pi, k))
    r = radius * rng.uniform(0.5, 1.0, k)
    return Polygon(np.column_stack([np.cos(angles) * r, np.sin(angles) * r]) + centre)


SQUARE = box(0, 0, 1000, 1000)


def test_a_part_inside_keeps_its_hand_worked_area() -> None:
    # A 10 m x 20 m rectangle well inside the square: 200 m2 exactly, by both routes.
    part = box(100.25, 300.5, 110.25, 320.5)
    assert shortcut([part], [SQUARE])[0, 0] == 200.0
    assert plain([part], [fresh(SQUARE)])[0, 0] == 200.0


@pytest.mark.parametrize(
    "part",
    [
        box(0, 100, 50, 200),  # shares the catchment's left edge, from inside
        box(-50, 100, 0, 200),  # shares it from outside: touches, no area
        box(-10, -10, 0, 0),  # touches at one corner only
        box(-25, 100, 25, 200),  # straddles the edge
        box(1e-9, 100, 50, 200),  # inside by a hair's breadth
        box(-200, -200, 1200, 1200),  # swallows the whole catchment
        box(0, 0, 1000, 1000),  # is the catchment
        box(2000, 0, 2100, 100),  # far outside
    ],
)
def test_edge_cases_against_a_square(part: Polygon) -> None:
    assert shortcut([part], [SQUARE]).tolist() == plain([part], [fresh(SQUARE)]).tolist()


def test_catchment_with_a_hole_and_parts_around_it() -> None:
    hole = box(400, 400, 600, 600)
    catchment = Polygon(SQUARE.exterior, [hole.exterior])
    parts = [
        box(450, 450, 550, 550),  # in the hole: no area
        box(350, 350, 650, 650),  # surrounds the hole
        box(380, 450, 420, 550),  # straddles the hole's edge
        box(300, 300, 390, 390),  # inside, near the hole
        Polygon(box(100, 100, 300, 300).exterior, [box(150, 150, 250, 250).exterior]),  # a ring
    ]
    assert same(shortcut(parts, [catchment]), plain(parts, [fresh(catchment)]))


def test_multipolygon_catchment_and_multipolygon_parts() -> None:
    catchment = MultiPolygon([SQUARE, box(2000, 0, 3000, 1000)])
    parts = [
        box(2100, 100, 2200, 250),  # inside the second part
        MultiPolygon([box(100, 100, 200, 200), box(2100, 100, 2200, 200)]),  # one in each
        MultiPolygon([box(100, 100, 200, 200), box(1500, 100, 1600, 200)]),  # one outside
        box(900, 100, 2100, 200),  # bridges the gap
    ]
    assert same(shortcut(parts, [catchment]), plain(parts, [fresh(catchment)]))


@pytest.mark.parametrize("seed", range(4))
def test_random_parts_near_jagged_catchments(seed: int) -> None:
    """Sites cut by parcels near and across jagged outlines of thousands of vertices."""
    rng = np.random.default_rng(seed)
    outline = jagged_ring((0.0, 0.0), 5_000.0, 6_000, rng)
    holed = Polygon(outline.exterior, [jagged_ring((0.0, 0.0), 600.0, 700, rng, 0.1).exterior])
    twin = MultiPolygon([holed, jagged_ring((14_000.0, 0.0), 1_500.0, 5_000, rng)])
    catchments = [outline, holed, twin]
    boundary = np.asarray(outline.exterior.coords)
    parts = []
    for k in range(150):
        # Half the sites sit on the outline (straddling or just inside), half anywhere.
        centre = boundary[int(rng.integers(len(boundary)))] if k % 2 else rng.uniform(-7e3, 7e3, 2)
        site = star(rng, tuple(centre), float(rng.uniform(20, 400)))
        parcel = box(*(centre - rng.uniform(0, 300, 2)), *(centre + rng.uniform(0, 300, 2)))
        if site.is_valid:
            parts.append(shapely.intersection(site, parcel))
    parts = [p for p in parts if not p.is_empty]
    got = shortcut(parts, catchments)
    want = plain(parts, [fresh(c) for c in catchments])
    assert same(got, want)
    # The cases that matter are all there: some parts inside, some across, some outside.
    assert (got == 0).sum() > 0 and (got > 0).sum() > 0
    inside = shapely.contains_properly(np.array(catchments)[None, :], np.array(parts)[:, None])
    crossing = shapely.intersects(np.array(catchments)[None, :], np.array(parts)[:, None])
    assert inside.sum() > 10 and (crossing & ~inside).sum() > 10


def test_large_parts_inside_a_detailed_catchment() -> None:
    """Parts 20-40 km across inside an 8,000-vertex outline: their own areas, as the overlay."""
    rng = np.random.default_rng(9)
    catchment = jagged_ring((50_000.0, 50_000.0), 45_000.0, 8_000, rng, roughness=0.05)
    parts = [
        box(40_000, 40_000, 60_000, 60_000),
        star(rng, (50_000.0, 50_000.0), 15_000.0),
        Polygon(
            box(30_000, 30_000, 70_000, 70_000).exterior,
            [box(45_000, 45_000, 55_000, 55_000).exterior],
        ),
    ]
    assert shapely.contains_properly(catchment, np.array(parts)).all()
    assert same(shortcut(parts, [catchment]), plain(parts, [fresh(catchment)]))
