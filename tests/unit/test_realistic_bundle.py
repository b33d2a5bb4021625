"""The realistic generators: detailed outlines that still tile, parcels of 5-30 vertices."""

import attrs
import numpy as np
import pytest
import shapely
from shapely.geometry import Point, box
from shapely.geometry.base import BaseGeometry

from nrf.bundles import realistic_layers as rl
from nrf.bundles import synthetic_norfolk as norfolk
from nrf.bundles.detailed_parcels import parcel_rows_detailed
from nrf.bundles.jagged_partition import jag_partition, jagged_line
from nrf.bundles.synthetic_bundle import plan_grid

SMALL = rl.Design(nn_islands=4, works=120, subcatchments=40, lpas=12, zone_spacing=2_000.0)


def assert_tiles(geoms: list[shapely.Geometry], frame: shapely.Geometry) -> None:
    """Valid, and together exactly the frame: areas add up to the union's and the frame's."""
    arr = np.asarray(geoms, dtype=object)
    assert shapely.is_valid(arr).all()
    total = float(shapely.area(arr).sum())
    union = shapely.union_all(arr)
    # Overlaps would make the sum exceed the union; gaps would leave the union short.
    assert total == pytest.approx(union.area, rel=1e-9)
    assert union.area == pytest.approx(frame.area, rel=1e-9)


def test_a_jagged_line_keeps_its_ends_and_spacing() -> None:
    rng = np.random.default_rng(1)
    out = jagged_line(np.array([[0.0, 0.0], [1000.0, 0.0]]), 20.0, 0.03, rng)
    assert out[0].tolist() == [0.0, 0.0] and out[-1].tolist() == [1000.0, 0.0]
    assert len(out) == 1000 // 20 + 1  # one vertex every 20 m
    assert np.abs(out[:, 1]).max() <= 0.03 * 1000 + 0.25 * 20  # bridge + field jitter bound
    assert np.abs(out[:, 1]).max() > 0  # it is jagged


def test_jagged_cells_still_tile_their_frame() -> None:
    frame = box(0, 0, 10_000, 10_000)
    seeds = shapely.multipoints(np.random.default_rng(2).uniform(0, 10_000, (30, 2)))
    cells = list(
        shapely.intersection(
            shapely.get_parts(shapely.voronoi_polygons(seeds, extend_to=frame, ordered=True)), frame
        )
    )
    jagged = jag_partition(
        cells, spacing=50.0, amplitude=0.03, seed=3, keep_straight=frame.boundary
    )
    assert_tiles(jagged, frame)
    # Far more vertices than the straight cells, each still near its own cell.
    assert shapely.get_num_coordinates(np.asarray(jagged)).sum() > 10 * sum(
        shapely.get_num_coordinates(np.asarray(cells))
    )
    for cell, new in zip(cells, jagged, strict=True):
        assert shapely.intersection(cell, new).area > 0.9 * cell.area


def test_nn_catchments_are_detailed_and_keep_norfolk() -> None:
    layer, islands = rl.national_nn_layer(SMALL, 7)
    geoms = np.asarray(layer.geometries, dtype=object)
    # Norfolk's 3 polygons (EDPs 1 and 2) and SMALL's 4 islands, numbered on from EDP 3.
    assert len(geoms) == 3 + 4 and [e for e, _ in islands] == [3, 4, 5, 6]
    assert shapely.is_valid(geoms).all()
    assert (shapely.get_num_coordinates(geoms) >= rl.MIN_NN_VERTICES).all()
    # Norfolk's three still tile what they tiled, and no two catchments overlap.
    norfolk_union = shapely.union_all(
        [norfolk._WENSUM, norfolk._BROADS_NORTH, norfolk._BROADS_SOUTH]
    )
    assert float(shapely.area(geoms[:3]).sum()) == pytest.approx(norfolk_union.area, rel=0.05)
    assert float(shapely.area(geoms).sum()) == pytest.approx(
        shapely.union_all(geoms).area, rel=1e-9
    )
    assert layer.attributes["n2k_site_name"][:3] == [norfolk.WENSUM, norfolk.BROADS, norfolk.BROADS]


def test_coarse_catchments_have_the_rigs_300_to_1100_vertices() -> None:
    design = attrs.evolve(rl.COARSE_CATCHMENTS, nn_islands=9, works=120, subcatchments=40, lpas=12)
    layer, islands = rl.national_nn_layer(design, 7)
    geoms = np.asarray(layer.geometries, dtype=object)
    assert len(geoms) == 3 + 9 and shapely.is_valid(geoms).all()
    assert [edp for edp, _ in islands] == list(range(3, 12))
    vertices = shapely.get_num_coordinates(geoms)
    # Islands 4 (a hole) and 7 (a second part) carry a few more vertices than their ring.
    assert (vertices >= 300).all() and (vertices <= 1_100 + 101).all(), vertices
    assert float(shapely.area(geoms).sum()) == pytest.approx(
        shapely.union_all(geoms).area, rel=1e-9
    )


def test_zone_layers_tile_england_and_keep_the_norfolk_seeds() -> None:
    works, extra = rl.national_wwtw_layer(SMALL, 7)
    lpas = rl.national_lpa_layer(SMALL, 7)
    # SMALL asks for 12 LPAs and 120 works, of which Norfolk's design seeds 13 (its _WORKS).
    assert len(lpas.geometries) == 12 and len(extra) == 120 - 13
    assert_tiles(list(lpas.geometries), box(*rl.ENGLAND_BOX))
    # Sculthorpe's seed lies in Sculthorpe's catchment (works 1065), as in the simple design.
    sculthorpe = Point(591_000, 331_000)
    geometries: list[BaseGeometry] = list(works.geometries)
    ids = [
        w
        for g, w in zip(geometries, works.attributes["wwtw_id"], strict=True)
        if g.contains(sculthorpe)
    ]
    assert ids == [1065]
    permits = rl.national_permits_table(extra, 7)
    added = len(list(permits.rows)) - len(list(norfolk.permits_table().rows))
    assert 0.9 * len(extra) < added <= len(extra)


def test_detailed_parcels_have_5_to_30_vertices_and_tile() -> None:
    grid = plan_grid(6_000, 11)
    parcels = np.concatenate([p for _, p in parcel_rows_detailed(grid, 7)])
    assert len(parcels) == grid.count
    vertices = shapely.get_num_coordinates(parcels) - 1  # the closing point is not a vertex
    assert vertices.min() >= 5 and vertices.max() <= 30 and vertices.mean() > 7
    assert shapely.is_valid(parcels).all() and shapely.coverage_is_valid(parcels)
    assert float(shapely.area(parcels).sum()) == pytest.approx(box(*grid.extent).area, rel=1e-9)


def test_chunking_does_not_change_the_parcels() -> None:
    grid = plan_grid(2_000, 5)
    one = np.concatenate([p for _, p in parcel_rows_detailed(grid, 1)])
    many = np.concatenate([p for _, p in parcel_rows_detailed(grid, 1000)])
    assert shapely.equals_identical(one, many).all()
