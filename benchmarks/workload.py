"""The sites each method assesses: the 0.03 ha sample, the 245 real sites, random sites."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import numpy as np
import shapely
from attrs import frozen
from shapely.geometry import Polygon

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.bundles.synthetic_norfolk import NORFOLK_EXTENT
from nrf.domain.model import Development
from nrf.domain.validation import validate_features

SMALL = ("BnW_small_under_1_hectare", "BnW_small_under_1_hectare.shp")
BNW = ("BnW_cleaned_110925", "BnW_cleaned_110925.shp")


@frozen
class Workload:
    """Everything a method is asked to assess, in EPSG:27700."""

    small: list[Development]
    bnw: list[Development]
    random: list[Development]


def real_sites(folder: str, name: str) -> list[Development]:
    return validate_features(read_boundary_file(bundled_samples() / folder / name))


def random_site(rng: np.random.Generator, centre: tuple[float, float], hectares: float) -> Polygon:
    """A star-shaped polygon of 8-24 vertices with exactly ``hectares`` of area."""
    n = int(rng.integers(8, 25))
    angles = np.sort(rng.uniform(0, 2 * math.pi, n))
    radii = rng.uniform(0.6, 1.0, n)
    ring = np.column_stack([np.cos(angles) * radii, np.sin(angles) * radii])
    shape = Polygon(ring)
    if not shape.is_valid:
        shape = shapely.convex_hull(shape)
    scale = math.sqrt(hectares * 10_000 / shape.area)
    coords = np.asarray(shape.exterior.coords) * scale + np.asarray(centre)
    return Polygon(coords)


def random_sites(n: int, seed: int, extent: list[float]) -> list[Development]:
    """``n`` sites of 0.1-100 ha (log-uniform) inside the parcels and Norfolk, so they touch
    coefficient polygons and, mostly, the synthetic catchments."""
    rng = np.random.default_rng(seed)
    minx, miny = max(extent[0], NORFOLK_EXTENT[0]), max(extent[1], NORFOLK_EXTENT[1])
    maxx, maxy = min(extent[2], NORFOLK_EXTENT[2]), min(extent[3], NORFOLK_EXTENT[3])
    if minx >= maxx or miny >= maxy:  # a tiny bundle away from Norfolk: use its own extent
        minx, miny, maxx, maxy = extent
    margin = 600.0
    sites = []
    for i in range(n):
        hectares = float(math.exp(rng.uniform(math.log(0.1), math.log(100.0))))
        centre = (
            float(rng.uniform(minx + margin, max(minx + margin, maxx - margin))),
            float(rng.uniform(miny + margin, max(miny + margin, maxy - margin))),
        )
        sites.append(
            Development(
                rlb_id=i + 1,
                id=f"random-{i + 1}",
                name=f"Random site {i + 1}",
                # A real category: the worker refuses a job without one, as it should.
                dwelling_category="allocation",
                source="benchmark",
                dwellings=int(rng.integers(1, 300)),
                boundary=random_site(rng, centre, hectares),
            )
        )
    return sites


def build(n_random: int, seed: int, extent: list[float]) -> Workload:
    return Workload(real_sites(*SMALL), real_sites(*BNW), random_sites(n_random, seed, extent))


def save(workload: Workload, path: Path) -> None:
    path.write_bytes(pickle.dumps(workload))


def load(path: Path) -> Workload:
    workload: Workload = pickle.loads(path.read_bytes())
    return workload
