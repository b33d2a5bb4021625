"""Jag the shared edges of a polygon partition, so outlines look hydrological yet still tile.

Every edge between two junctions is replaced once by a random-walk bridge with one vertex
every ``spacing`` metres, and both neighbours use that same polyline, so the jagged cells
still meet exactly (no gaps, no overlaps). The offset is tapered to zero at the junctions;
any crossing that remains is noded away and each face goes back to the cell it came from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LineString, MultiPolygon, Polygon

Cells = Sequence[shapely.Geometry]


def jagged_line(
    coords: NDArray[np.float64], spacing: float, amplitude: float, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Densify a polyline to ~``spacing`` m and push it sideways by a tapered random bridge.

    The sideways offset is a function of the distance along the line (so the result never
    folds back over itself); its largest value is about ``amplitude`` times the length.
    """
    seg = np.diff(coords, axis=0)
    seg_len = np.hypot(seg[:, 0], seg[:, 1])
    keep = seg_len > 0
    coords = np.vstack([coords[:1], coords[1:][keep]])
    seg, seg_len = seg[keep], seg_len[keep]
    total = float(seg_len.sum())
    if len(seg_len) == 0 or total <= 2 * spacing:
        return coords
    n = max(2, int(np.ceil(total / spacing)))
    s = np.linspace(0.0, total, n + 1)
    along = np.concatenate([[0.0], np.cumsum(seg_len)])
    x = np.interp(s, along, coords[:, 0])
    y = np.interp(s, along, coords[:, 1])
    walk = np.concatenate([[0.0], np.cumsum(rng.standard_normal(n))])
    t = s / total
    bridge = walk - t * walk[-1]
    scale = np.abs(bridge).max() or 1.0
    taper = np.minimum(1.0, 6.0 * t * (1.0 - t))
    field_jitter = rng.uniform(-0.25, 0.25, n + 1) * spacing
    offset = (bridge / scale * amplitude * total + field_jitter) * taper**2
    offset[0] = offset[-1] = 0.0
    # Sideways = the local normal of the densified line (central differences).
    dx, dy = np.gradient(x), np.gradient(y)
    norm = np.hypot(dx, dy)
    norm[norm == 0] = 1.0
    out = np.column_stack([x - dy / norm * offset, y + dx / norm * offset])
    out[0], out[-1] = coords[0], coords[-1]
    return out


def _edges(cells: Cells) -> list[LineString]:
    """The partition's boundary network split at every junction, each edge once."""
    merged = shapely.line_merge(shapely.union_all(shapely.boundary(np.asarray(cells))))
    return [g for g in shapely.get_parts(merged) if isinstance(g, LineString)]


def jag_partition(
    cells: Cells,
    *,
    spacing: float,
    amplitude: float,
    seed: int,
    keep_straight: shapely.Geometry | None = None,
) -> list[shapely.Geometry]:
    """The cells with jagged shared edges, in the same order; edges inside ``keep_straight``
    (e.g. the outer frame) stay as they are."""
    rng = np.random.default_rng(seed)
    lines = []
    for edge in _edges(cells):
        coords = np.asarray(edge.coords)
        if keep_straight is not None and shapely.covered_by(edge, keep_straight):
            lines.append(edge)
            continue
        lines.append(LineString(jagged_line(coords, spacing, amplitude, rng)))
    noded = shapely.union_all(np.asarray(lines, dtype=object))
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(noded)))
    tree = shapely.STRtree(np.asarray(cells, dtype=object))
    points = shapely.point_on_surface(faces)
    owner = np.full(len(faces), -1)
    face_idx, cell_idx = tree.query(points, predicate="intersects")
    owner[face_idx] = cell_idx
    missing = np.flatnonzero(owner < 0)
    if len(missing):
        owner[missing] = tree.query_nearest(points[missing], all_matches=False)[1]
    out: list[shapely.Geometry] = []
    for k in range(len(cells)):
        mine = faces[owner == k]
        out.append(shapely.union_all(mine) if len(mine) else Polygon())
    return out


def jagged_ring(
    centre: tuple[float, float],
    radius: float,
    vertices: int,
    rng: np.random.Generator,
    roughness: float = 0.25,
) -> Polygon:
    """A closed jagged outline of about ``vertices`` vertices (a catchment-like island).

    The radius is a smooth wobble plus a periodic random walk; star-shaped about the centre,
    so the ring is always simple.
    """
    angle = np.linspace(0.0, 2 * np.pi, vertices, endpoint=False)
    walk = np.cumsum(rng.standard_normal(vertices))
    walk -= np.linspace(0.0, walk[-1], vertices)  # close the walk
    walk = (walk - walk.mean()) / (np.abs(walk).max() or 1.0)
    wobble = 0.15 * np.sin(3 * angle + rng.uniform(0, 6)) + 0.1 * np.sin(5 * angle)
    r = radius * (1.0 + wobble + roughness * walk + rng.uniform(-0.01, 0.01, vertices))
    r = np.maximum(r, 0.3 * radius)
    return Polygon(np.column_stack([centre[0] + r * np.cos(angle), centre[1] + r * np.sin(angle)]))


def as_multipolygon(geom: shapely.Geometry) -> MultiPolygon:
    """Centimetre precision, valid, polygonal parts only, always a MultiPolygon."""
    fixed = shapely.make_valid(shapely.set_precision(geom, 0.01))
    # Two levels: a collection may hold multipolygons.
    parts = shapely.get_parts(shapely.get_parts(fixed))
    return MultiPolygon([p for p in parts if isinstance(p, Polygon) and p.area > 0])
