"""National-scale small layers with realistic detail, built around the Norfolk design.

Real reference layers are not 3 catchments of 10 vertices: NN catchments are hydrological
outlines with thousands of vertices, and England has thousands of treatment-works catchments.
So: the 3 Norfolk NN catchments (jagged, >= 5,000 vertices each) plus island catchments
elsewhere; ~4,000 works, ~1,000 subcatchments and ~300 LPAs as jagged Voronoi partitions of
England that keep the Norfolk seeds (so the sample sites keep their works, LPA, subcatchment).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from attrs import frozen
from shapely.geometry import MultiPoint, MultiPolygon, Polygon, box

from nrf.bundles import synthetic_norfolk as norfolk
from nrf.bundles.geopackage_writer import Layer, Table
from nrf.bundles.jagged_partition import as_multipolygon, jag_partition, jagged_ring

ENGLAND_BOX = (130_000.0, 10_000.0, 655_000.0, 660_000.0)
MIN_NN_VERTICES = 5_000


@frozen(kw_only=True)
class Design:
    """How many features each layer gets and how finely their edges are drawn (m)."""

    nn_islands: int = 26
    works: int = 4_000
    subcatchments: int = 1_000
    lpas: int = 300
    nn_spacing: float = 20.0
    zone_spacing: float = 150.0
    # Island NN catchments: vertices of the outline (low, high), of a hole, of a second part.
    nn_vertices: tuple[int, int] = (MIN_NN_VERTICES + 200, 9_000)
    nn_hole_vertices: int = 800
    nn_part_vertices: int = MIN_NN_VERTICES // 4


# The independent rig's shape (issue 20): 29 NN catchments of 300-1,100 vertices.
COARSE_CATCHMENTS = Design(
    nn_spacing=150.0, nn_vertices=(300, 1_100), nn_hole_vertices=100, nn_part_vertices=80
)


def _seeds(
    rng: np.random.Generator, fixed: Sequence[tuple[float, float]], total: int
) -> np.ndarray:
    x0, y0, x1, y1 = ENGLAND_BOX
    extra = np.column_stack(
        [rng.uniform(x0, x1, total - len(fixed)), rng.uniform(y0, y1, total - len(fixed))]
    )
    return np.vstack([np.asarray(fixed, dtype=float), extra])


def _partition(seeds: np.ndarray, spacing: float, seed: int) -> list[shapely.Geometry]:
    """Voronoi cells of ``seeds`` (in seed order) over England, with jagged shared edges."""
    frame = box(*ENGLAND_BOX)
    cells = shapely.get_parts(
        shapely.voronoi_polygons(MultiPoint(seeds), extend_to=frame, ordered=True)
    )
    cells = shapely.intersection(cells, frame)
    return jag_partition(
        list(cells), spacing=spacing, amplitude=0.03, seed=seed, keep_straight=frame.boundary
    )


def national_nn_layer(design: Design, seed: int) -> tuple[Layer, list[tuple[int, str]]]:
    """(layer, [(edp_id, name)] of the island catchments added beyond Norfolk's two EDPs)."""
    rng = np.random.default_rng([seed, 1])
    norfolk_cells = jag_partition(
        [norfolk._WENSUM, norfolk._BROADS_NORTH, norfolk._BROADS_SOUTH],
        spacing=design.nn_spacing,
        amplitude=0.02,
        seed=seed,
    )
    geoms: list[shapely.Geometry] = [as_multipolygon(g) for g in norfolk_cells]
    names, edps = [norfolk.WENSUM, norfolk.BROADS, norfolk.BROADS], [1, 2, 2]
    taken = [box(*norfolk.NORFOLK_EXTENT).buffer(5_000)]
    x0, y0, x1, y1 = ENGLAND_BOX
    islands: list[tuple[int, str]] = []
    while len(islands) < design.nn_islands:
        radius = float(rng.uniform(6_000, 16_000))
        centre = (
            float(rng.uniform(x0 + radius, x1 - radius)),
            float(rng.uniform(y0 + radius, y1 - radius)),
        )
        reach = shapely.Point(centre).buffer(radius * 2.6)
        if any(reach.intersects(t) for t in taken):
            continue
        taken.append(reach)
        vertices = int(rng.integers(*design.nn_vertices))
        outline: shapely.Geometry = jagged_ring(centre, radius, vertices, rng)
        k = len(islands)
        if k % 9 == 4:  # some catchments have a hole (a lake, an excluded basin)
            hole = jagged_ring(centre, radius * 0.12, design.nn_hole_vertices, rng, roughness=0.1)
            outline = Polygon(outline.exterior, [hole.exterior])
        if k % 9 == 7:  # and some are in two parts
            far = (centre[0] + radius * 2.1, centre[1])
            part = jagged_ring(far, radius * 0.2, design.nn_part_vertices, rng, roughness=0.1)
            outline = MultiPolygon([outline, part])
        edp = 3 + k
        name = f"Synthetic NN catchment {edp}"
        islands.append((edp, name))
        geoms.append(as_multipolygon(outline))
        names.append(name)
        edps.append(edp)
    layer = Layer(
        name="nn_catchments",
        columns=[("n2k_site_name", "TEXT"), ("edp_id", "INTEGER")],
        geometries=geoms,
        attributes={"n2k_site_name": names, "edp_id": edps},
        geometry_type="MULTIPOLYGON",
    )
    return layer, islands


def national_wwtw_layer(design: Design, seed: int) -> tuple[Layer, list[int]]:
    """(layer, ids of the works beyond Norfolk's); Norfolk's no-works gaps stay gaps."""
    rng = np.random.default_rng([seed, 2])
    seeds = _seeds(rng, [s for _, _, s in norfolk._WORKS], design.works)
    cells = _partition(seeds, design.zone_spacing, seed + 2)
    gaps = shapely.union_all(
        [norfolk.blob(c, r, 100 + i) for i, (c, r) in enumerate(norfolk._NO_WORKS)]
    )
    extra = [100_000 + k for k in range(design.works - len(norfolk._WORKS))]
    ids = [wid for wid, _, _ in norfolk._WORKS] + extra
    geoms = [as_multipolygon(shapely.difference(c, gaps)) for c in cells]
    keep = [k for k, g in enumerate(geoms) if not g.is_empty]
    return Layer(
        name="wwtw_catchments",
        columns=[("wwtw_id", "INTEGER")],
        geometries=[geoms[k] for k in keep],
        attributes={"wwtw_id": [ids[k] for k in keep]},
        geometry_type="MULTIPOLYGON",
    ), extra


def _named_zones(
    layer: str,
    column: str,
    fixed: Sequence[tuple[str, tuple[float, float]]],
    total: int,
    prefix: str,
    spacing: float,
    seed: int,
) -> Layer:
    rng = np.random.default_rng([seed, 3])
    seeds = _seeds(rng, [s for _, s in fixed], total)
    cells = _partition(seeds, spacing, seed)
    names = [n for n, _ in fixed] + [f"{prefix} {k + 1}" for k in range(total - len(fixed))]
    return Layer(
        name=layer,
        columns=[(column, "TEXT")],
        geometries=[as_multipolygon(c) for c in cells],
        attributes={column: names},
        geometry_type="MULTIPOLYGON",
    )


def national_lpa_layer(design: Design, seed: int) -> Layer:
    return _named_zones(
        "lpa_boundaries",
        "name",
        norfolk._LPAS,
        design.lpas,
        "Synthetic LPA",
        design.zone_spacing,
        seed + 3,
    )


def national_subcatchment_layer(design: Design, seed: int) -> Layer:
    return _named_zones(
        "subcatchments",
        "opcat_name",
        norfolk._SUBCATCHMENTS,
        design.subcatchments,
        "Synthetic subcatchment",
        design.zone_spacing,
        seed + 4,
    )


def national_permits_table(extra_works: list[int], seed: int) -> Table:
    """Norfolk's rows (with their dirt) plus a permit for ~98 % of the other works."""
    base = norfolk.permits_table()
    rng = np.random.default_rng([seed, 5])
    rows = list(base.rows)
    choices = [None, 10.0, 15.0, 27.0]
    for wid in extra_works:
        r = rng.random(5)
        if r[0] < 0.02:
            continue
        rows.append(
            (
                str(wid),
                f"Works {wid}",
                None,
                choices[int(r[1] * 4)],
                choices[1 + int(r[2] * 3)],
                round(0.25 + 7.75 * r[3], 2),
                round(0.25 + 7.75 * r[4], 2),
            )
        )
    return Table(base.name, base.columns, rows)


def national_edp_layer(nn: Layer, islands: list[tuple[int, str]]) -> Layer:
    """EDPs drawn on the catchments' own outlines: Norfolk's one EDP, then one per island."""
    ids = [norfolk.NORFOLK_EDP_ID] * 3 + [edp for edp, _ in islands]
    names = [norfolk.NORFOLK_EDP] * 3 + [f"Synthetic EDP {edp}" for edp, _ in islands]
    return Layer(
        name="edp_boundaries",
        columns=[("edp_id", "INTEGER"), ("edp_name", "TEXT")],
        geometries=nn.geometries,
        attributes={"edp_id": ids, "edp_name": names},
        geometry_type="MULTIPOLYGON",
    )


def national_levy_charges_table(islands: list[tuple[int, str]], seed: int) -> Table:
    """Norfolk's schedule, and a made-up charge per home for each island EDP."""
    base = norfolk.levy_charges_table()
    rng = np.random.default_rng([seed, 7])
    rows = list(base.rows)
    for edp, _ in islands:
        charge = f"{rng.uniform(1_500, 4_000):.4f}"
        rows.append((edp, f"Synthetic EDP {edp}", "2026-01-01", "2026-01-01", "2027-12-31", charge))
    return Table(base.name, base.columns, rows)


def national_layers(design: Design, seed: int) -> tuple[list[Layer], list[Table]]:
    """The six small layers and six lookup tables of a realistic national bundle."""
    nn, islands = national_nn_layer(design, seed)
    works, extra = national_wwtw_layer(design, seed)
    layers = [
        nn,
        works,
        national_lpa_layer(design, seed),
        national_subcatchment_layer(design, seed),
        national_edp_layer(nn, islands),
        norfolk.excluded_layer(),
    ]
    tables = [
        national_permits_table(extra, seed),
        norfolk.occupancy_table(),
        national_levy_charges_table(islands, seed),
        norfolk.inflation_index_table(),
        norfolk.levy_settings_table(),
    ]
    return layers, tables
