"""`python -m benchmarks.cli_sites OUT.geojson --sites 50000`: a county-sized file for `nrf assess`.

Squares of 1 ha tiled in a regular grid over the synthetic Norfolk bundle's extent, so every
site falls on its reference data (some outside the catchments, as in real batches). The file
is the same on every run: no randomness, dwellings from the site's position in the grid.
"""

from __future__ import annotations

import argparse
import json
import math
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--sites", type=int, default=50_000)
    args = parser.parse_args()
    document = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}},
        "features": features(args.sites),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document))
    print(f"wrote {args.sites:,} sites to {args.output}")


if __name__ == "__main__":
    main()
