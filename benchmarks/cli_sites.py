"""`python -m benchmarks.cli_sites OUT.geojson --sites 50000`: a county-sized file for `nrf assess`.

Squares of 1 ha tiled in a regular grid over the synthetic Norfolk bundle's extent, so every
site falls on its reference data (some outside the catchments, as in real batches). The file
is the same on every run: no randomness, dwellings from the site's position in the grid.

``--random`` places random star-shaped sites instead (0.05-5 ha, log-uniform; 12-60
vertices; seed fixed), anywhere in the same extent: a national file of small real-shaped
sites (`--sites 1000000` is ~0.9 GB). Written a feature at a time, so any size fits.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path

# The synthetic Norfolk bundle's extent (its layers' total bounds, EPSG:27700 metres).
EXTENT = (579_800.0, 276_600.0, 645_300.0, 346_900.0)
SIDE = 100.0  # metres: a 1 ha site


def features(count: int) -> list[dict[str, object]]:
    minx, miny, maxx, maxy = EXTENT
    columns = math.ceil(math.sqrt(count * (maxx - minx) / (maxy - miny)))
    rows = math.ceil(count / columns)
    dx, dy = (maxx - minx - SIDE) / max(1, columns - 1), (maxy - miny - SIDE) / max(1, rows - 1)
    found: list[dict[str, object]] = []
    for n in range(count):
        x, y = minx + dx * (n % columns), miny + dy * (n // columns)
        ring = [[x, y], [x + SIDE, y], [x + SIDE, y + SIDE], [x, y + SIDE], [x, y]]
        found.append(
            {
                "type": "Feature",
                "properties": {
                    "id": f"BENCH-{n + 1:06d}",
                    "Name": f"Grid site {n + 1}",
                    "Dwel_Cat": "housing",
                    "Source": "benchmark",
                    "Dwellings": 1 + n % 60,
                },
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return found


def random_features(count: int, seed: int = 20) -> Iterator[dict[str, object]]:
    """Random star-shaped sites (see the module's docstring), one at a time."""
    rng = random.Random(seed)
    minx, miny, maxx, maxy = EXTENT
    for n in range(count):
        area = math.exp(rng.uniform(math.log(500.0), math.log(50_000.0)))  # m2
        vertices = rng.randint(12, 60)
        radius = math.sqrt(area / math.pi)
        x = rng.uniform(minx + 2 * radius, maxx - 2 * radius)
        y = rng.uniform(miny + 2 * radius, maxy - 2 * radius)
        ring = []
        for k in range(vertices):
            angle = 2 * math.pi * k / vertices
            r = radius * rng.uniform(0.6, 1.3)
            ring.append([round(x + r * math.cos(angle), 2), round(y + r * math.sin(angle), 2)])
        ring.append(ring[0])
        yield {
            "type": "Feature",
            "properties": {
                "id": f"NAT-{n + 1:07d}",
                "Name": f"Random site {n + 1}",
                "Dwel_Cat": "housing",
                "Source": "benchmark",
                "Dwellings": rng.randint(1, 200),
            },
            "geometry": {"type": "Polygon", "coordinates": [ring]},
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--sites", type=int, default=50_000)
    parser.add_argument("--random", action="store_true", help="random real-shaped small sites")
    args = parser.parse_args()
    crs = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    if not args.random:
        document = {"type": "FeatureCollection", "crs": crs, "features": features(args.sites)}
        args.output.write_text(json.dumps(document))
    else:
        with args.output.open("w") as out:
            out.write('{"type": "FeatureCollection", "crs": ' + json.dumps(crs) + ', "features": [')
            for n, feature in enumerate(random_features(args.sites)):
                out.write((",\n" if n else "\n") + json.dumps(feature))
            out.write("\n]}\n")
    print(f"wrote {args.sites:,} sites to {args.output}")


if __name__ == "__main__":
    main()
