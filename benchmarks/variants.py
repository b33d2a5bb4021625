"""`python -m benchmarks.variants BUNDLE`: what each change is worth, measured side by side.

The 245 Broads & Wensum sites as one batch, the variants alternated in one process (so the
machine's load hits them alike), wall and CPU (this process and its forked children) per
batch; the median of each. Every variant must give the same figures (checked). Also opening
the bundle lazily (trusted digest) against reading and checking it whole.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import shapely

from benchmarks import figures
from benchmarks.timing import cpu_seconds
from benchmarks.workload import BNW, real_sites
from nrf.adapters.boundary_data import geopackage_boundary_data as gbd
from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
from nrf.domain import land_use
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.rules import DEFAULT_RULE_SET, rule_set_named

QUOTE_DATE = date(2026, 11, 26)  # inside the synthetic Norfolk charge's first window

Map = Callable[..., Iterator[Any]]


def full_overlays(parts: np.ndarray, catchments: np.ndarray) -> np.ndarray:
    """The overlays without the inside-the-catchment shortcut (as before issue 9)."""
    if len(parts) == 0 or len(catchments) == 0:
        return np.zeros((len(parts), len(catchments)))
    return np.asarray(shapely.area(shapely.intersection(parts[:, np.newaxis], catchments)))


def batch(bundle: Path, repeats: int) -> dict[str, Any]:
    rules = rule_set_named(DEFAULT_RULE_SET)
    sites = real_sites(*BNW)
    repo = gbd.GeoPackageBoundaryData(bundle)
    shortcut = land_use.piece_areas
    variants: dict[str, tuple[Map, Callable[..., np.ndarray]]] = {
        "one process, inside shortcut": (map, shortcut),
        "2 processes always, inside shortcut": (
            ForkedSiteMap(2, spare_cpus=lambda: 64.0),
            shortcut,
        ),
        "one process, full overlays": (map, full_overlays),
    }
    times: dict[str, list[float]] = {k: [] for k in variants}
    cpus: dict[str, list[float]] = {k: [] for k in variants}
    seen: dict[str, Any] = {}
    for _ in range(repeats):
        for name, (site_map, areas) in variants.items():
            land_use.piece_areas = areas
            try:
                cpu0, started = cpu_seconds(), time.perf_counter()
                run = AssessDevelopments(repo, site_map)(sites, rules, QUOTE_DATE)
                times[name].append((time.perf_counter() - started) * 1000)
                cpus[name].append((cpu_seconds() - cpu0) * 1000)
            finally:
                land_use.piece_areas = shortcut
            outcomes: list[Any] = [*run.sites, *run.out_of_scope]
            seen[name] = [figures.from_outcome(o) for o in outcomes]
    reference = seen["one process, inside shortcut"]
    return {
        name: {
            "batch_ms": round(statistics.median(times[name]), 1),
            "cpu_ms": round(statistics.median(cpus[name]), 1),
            "same_figures": seen[name] == reference,
        }
        for name in variants
    }


def opening(bundle: Path, repeats: int) -> dict[str, float]:
    """Open lazily (this digest was vouched for) and whole (every geometry read and checked)."""
    lazy, whole = [], []
    trusted = gbd.trusted_layers
    for _ in range(repeats):
        started = time.perf_counter()
        gbd.GeoPackageBoundaryData(bundle)
        lazy.append((time.perf_counter() - started) * 1000)
        gbd.trusted_layers = lambda path: frozenset()
        try:
            started = time.perf_counter()
            gbd.GeoPackageBoundaryData(bundle)
            whole.append((time.perf_counter() - started) * 1000)
        finally:
            gbd.trusted_layers = trusted
    return {
        "open_trusted_lazy_ms": round(statistics.median(lazy), 1),
        "open_checked_whole_ms": round(statistics.median(whole), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    out = {
        "bundle": args.bundle.name,
        "batch": batch(args.bundle, args.repeats),
        "open": opening(args.bundle, args.repeats),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
