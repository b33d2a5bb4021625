"""Random layers for overlay tests: Voronoi parcels and catchments, star-shaped sites."""

import math

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from nrf.domain.model import CoefficientPolygon, NnCatchment

EXTENT = box(0, 0, 2000, 2000)


def cells(rng: np.random.Generator, n: int) -> list[Polygon]:
    points = shapely.multipoints(rng.uniform(0, 2000, (n, 2)))
    return [
        shapely.intersection(c, EXTENT)
        for c in shapely.voronoi_polygons(points, extend_to=EXTENT).geoms
    ]


def site(rng: np.random.Generator) -> Polygon:
    k = int(rng.integers(5, 30))
    angles = np.sort(rng.uniform(0, 2 * math.pi, k))
    radius = float(np.exp(rng.uniform(np.log(20), np.log(500))))
    r = radius * rng.uniform(0.5, 1.0, k)
    centre = rng.uniform(200, 1800, 2)
    return Polygon(np.column_stack([np.cos(angles) * r, np.sin(angles) * r]) + centre)


def coefficient(rng: np.random.Generator, geometry: Polygon) -> CoefficientPolygon:
    values: list[float | None] = [
        round(float(v), 3) for v in rng.uniform([5, 0.1, 8, 0.3], [40, 2.5, 20, 1.5])
    ]
    if rng.random() < 0.05:
        values[int(rng.integers(4))] = None
    n_current, p_current, n_resi, p_resi = values
    return CoefficientPolygon(
        geometry=geometry,
        lu_curr_n_coeff=n_current,
        lu_curr_p_coeff=p_current,
        n_resi_coeff=n_resi,
        p_resi_coeff=p_resi,
    )


def catchments(rng: np.random.Generator, ids: list[tuple[str, str]]) -> list[NnCatchment]:
    """One Voronoi cell of the extent per (N2K site, OID), so sites cross their edges."""
    return [
        NnCatchment(geometry=g, n2k_site_name=name, edp_id=oid)
        for g, (name, oid) in zip(cells(rng, len(ids)), ids, strict=True)
    ]
