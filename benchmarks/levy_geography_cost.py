"""`python -m benchmarks.levy_geography_cost BUNDLE`: what the levy's geography costs a batch.

Issue 17 asks that the EDP, catchment-share and excluded-area lookups cost at most 5 % of the
245-site batch. The batch is run with the assessment's real lookups and with them replaced by
stubs that return nothing, alternated in one process so the machine's load hits both alike;
the median CPU of each and the difference are printed. The N and P figures of both are checked
to be the same (only the levy's geography is left out), so the stubs skip no other work.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.timing import cpu_seconds
from benchmarks.workload import BNW, real_sites
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.domain import assessment
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.rules import DEFAULT_RULE_SET, rule_set_named

QUOTE_DATE = date(2026, 11, 26)
LOOKUPS = ("edp_overlaps", "excluded_areas_met", "catchment_overlaps")


def _nothing(*_args: Any, **_kwargs: Any) -> tuple[()]:
    return ()


def measure(bundle: Path, repeats: int) -> dict[str, Any]:
    rules = rule_set_named(DEFAULT_RULE_SET)
    sites = real_sites(*BNW)
    repo = GeoPackageBoundaryData(bundle)
    real: dict[str, Callable[..., Any]] = {name: getattr(assessment, name) for name in LOOKUPS}
    cpu: dict[str, list[float]] = {"with": [], "without": []}
    nutrients: dict[str, list[tuple[float, float]]] = {}
    AssessDevelopments(repo)(sites, rules, QUOTE_DATE)  # warm the bundle's caches
    for _ in range(repeats):
        for variant in ("with", "without"):
            if variant == "without":
                for name in LOOKUPS:
                    setattr(assessment, name, _nothing)
            try:
                started = cpu_seconds()
                run = AssessDevelopments(repo)(sites, rules, QUOTE_DATE)
                cpu[variant].append((cpu_seconds() - started) * 1000)
            finally:
                for name, function in real.items():
                    setattr(assessment, name, function)
            nutrients[variant] = [(s.n_total, s.p_total) for s in run.sites]
    with_ms, without_ms = statistics.median(cpu["with"]), statistics.median(cpu["without"])
    return {
        "bundle": str(bundle),
        "repeats": repeats,
        "cpu_ms_with_lookups": round(with_ms, 1),
        "cpu_ms_without_lookups": round(without_ms, 1),
        "lookup_share_percent": round(100 * (with_ms - without_ms) / with_ms, 1),
        "same_nutrient_figures": nutrients["with"] == nutrients["without"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.bundle, args.repeats), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
