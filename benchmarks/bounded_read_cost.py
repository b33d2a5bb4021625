"""`python -m benchmarks.bounded_read_cost`: what reading a file in a bounded child costs.

GDAL reads a user's file in a forked child (``bounded_read``). Each sample file is read
``repeats`` times in children, then as often inline (``_FORKS`` off, as before the change),
and the median wall time of each and the difference are printed: the 245 Broads & Wensum
sites (shapefile, and the same as a GeoPackage, by path and as an upload's bytes), and one
small site. The children come first: a parent that has itself called GDAL would hand them
its warm caches, which the API's and the worker's processes (that never call GDAL) do not.
The bundle is loaded first, so the parent is of the API's size.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyogrio

from benchmarks.workload import BNW, SMALL
from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.adapters.site_boundaries import bounded_read
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.adapters.site_boundaries.bounded_read import bounded_call
from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.roots.core import Core, build


def _copy_as_gpkg(shp: Path, gpkg: Path) -> None:
    pyogrio.write_dataframe(pyogrio.read_dataframe(shp), gpkg, driver="GPKG")


def _files(folder: Path) -> dict[str, Path]:
    bnw = bundled_samples() / BNW[0] / BNW[1]
    gpkg = folder / "bnw.gpkg"
    # Written by a child too, so that the parent's GDAL stays cold.
    bounded_call(_copy_as_gpkg, bnw, gpkg, limits=DEFAULT_LIMITS)
    return {
        "245 sites, shapefile": bnw,
        "245 sites, GeoPackage": gpkg,
        "1 site, shapefile": bundled_samples() / SMALL[0] / SMALL[1],
    }


def _reads(folder: Path) -> dict[str, Callable[[], object]]:
    reads: dict[str, Callable[[], object]] = {}
    for name, path in _files(folder).items():
        reads[f"{name} (path)"] = functools.partial(read_boundary_file, path)
        if path.suffix == ".gpkg":
            upload = functools.partial(read_boundary_bytes, path.read_bytes(), "x.gpkg")
            reads[f"{name} (upload)"] = upload
    return reads


def _timed(read: Callable[[], object]) -> float:
    started = time.perf_counter()
    read()
    return time.perf_counter() - started


def measure(repeats: int) -> dict[str, Any]:
    build(Core).boundary_data()  # a parent of the API's size: the bundle loaded
    times: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as temp:
        reads = _reads(Path(temp))
        for variant in ("child", "inline"):  # every child first, while the parent is cold
            bounded_read._FORKS = variant == "child"
            try:
                for name, read in reads.items():
                    read()  # the page cache warm
                    times.setdefault(name, {})[variant] = [_timed(read) for _ in range(repeats)]
            finally:
                bounded_read._FORKS = True
    rows = {}
    for name, both in times.items():
        child, inline = (statistics.median(both[v]) for v in ("child", "inline"))
        rows[name] = {
            "child_ms": round(child * 1000, 1),
            "inline_ms": round(inline * 1000, 1),
            "cost_ms": round((child - inline) * 1000, 1),
        }
    return {"repeats": repeats, "load_average": os.getloadavg(), "files": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    result = measure(parser.parse_args().repeats)
    print(json.dumps(result, indent=2))
    print("\n| file | in a child | inline | cost |\n|---|---|---|---|")
    for name, row in result["files"].items():
        print(f"| {name} | {row['child_ms']} ms | {row['inline_ms']} ms | {row['cost_ms']} ms |")


if __name__ == "__main__":
    main()
