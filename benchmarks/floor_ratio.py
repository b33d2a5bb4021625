"""`python -m benchmarks.floor_ratio BUNDLE [BUNDLE ...] [--repeats N]`: issue 32's ratio.

The 245 Broads & Wensum sites as one batch in this process (the builtin map, as a batch runs
when no CPU is spare), the project's own path (``GeoPackageBoundaryData`` + ``AssessDevelopments``)
against the in-memory floor (``benchmarks.method_floor``: every parcel decoded once into an
STRtree, the same overlays), alternated in one process so the machine's load hits both alike,
the order flipped every round; CPU by ``process_time``, median of ``--repeats`` after a warm-up
round. Issue 32's target: nrf's CPU ≤ 1.3 × the floor's on both of the benchmark's bundles.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from benchmarks import figures
from benchmarks.method_floor import Floor
from benchmarks.workload import BNW, real_sites
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.rules import DEFAULT_RULE_SET, rule_set_named

QUOTE_DATE = date(2026, 11, 26)
TARGET = 1.3


def cpu_ms(fn: Callable[[], object]) -> float:
    started = time.process_time()
    fn()
    return (time.process_time() - started) * 1000


def ratio(bundle: Path, repeats: int) -> dict[str, float]:
    """Median CPU ms per batch of the floor and of nrf, and nrf / floor."""
    rules, sites = rule_set_named(DEFAULT_RULE_SET), real_sites(*BNW)
    floor = Floor(bundle)
    assess = AssessDevelopments(GeoPackageBoundaryData(bundle), map)
    methods: dict[str, Callable[[], object]] = {
        "floor": lambda: [figures.from_pieces(d, floor.rows(d.boundary), rules) for d in sites],
        "nrf": lambda: assess(sites, rules, QUOTE_DATE),
    }
    spent: dict[str, list[float]] = {name: [] for name in methods}
    for round_ in range(repeats + 1):
        order = list(methods) if round_ % 2 else list(methods)[::-1]
        for name in order:
            ms = cpu_ms(methods[name])
            if round_:  # the first round warms both up
                spent[name].append(ms)
    floor_ms, nrf_ms = (statistics.median(spent[name]) for name in ("floor", "nrf"))
    return {"floor_ms": floor_ms, "nrf_ms": nrf_ms, "ratio": nrf_ms / floor_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bundles", type=Path, nargs="+")
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()
    print("| bundle | floor CPU ms | nrf CPU ms | nrf / floor | ≤ 1.3 | load average |")
    print("|---|---|---|---|---|---|")
    for bundle in args.bundles:
        load = os.getloadavg()[0]
        got = ratio(bundle, args.repeats)
        load = max(load, os.getloadavg()[0])
        met = "yes" if got["ratio"] <= TARGET else "no"
        print(
            f"| {bundle.name} | {got['floor_ms']:.1f} | {got['nrf_ms']:.1f} | "
            f"{got['ratio']:.2f} | {met} | ≤ {load:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
