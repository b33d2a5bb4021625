"""`python -m benchmarks.forked_old_vs_new BUNDLE --old REV`: the forked batch, old and new.

As `benchmarks.old_vs_new`, the code at REV beside the working tree in one process, alternated,
but each batch on ``ForkedSiteMap(2)`` told two CPUs are spare, so it forks as on an idle
machine: wall and CPU of this process and its children (``getrusage``) per batch, medians.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs

from benchmarks.old_vs_new import QUOTE_DATE, old_package
from benchmarks.workload import BNW, real_sites


def cpu_seconds() -> float:
    """User and system CPU of this process and every child it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def forked_batch(root: str, bundle: Path, sites: list[Any]) -> Any:
    """A call assessing ``sites`` with version ``root`` (``nrf`` or ``nrf_old``), forked."""

    def module(name: str) -> Any:
        return __import__(f"{root}.{name}", fromlist=["_"])

    repo = module("adapters.boundary_data.geopackage_boundary_data").GeoPackageBoundaryData(bundle)
    site_map = module("adapters.site_map.forked_site_map").ForkedSiteMap(2, spare_cpus=lambda: 2.0)
    use = module("domain.assessment").AssessDevelopments(repo, site_map)
    rules_module = module("domain.rules")
    rules = rules_module.rule_set_named(rules_module.DEFAULT_RULE_SET)
    model = module("domain.model")
    devs = [model.Development(**attrs.asdict(d, recurse=False)) for d in sites]
    return lambda: use(devs, rules, QUOTE_DATE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--old", required=True, help="git revision of the old code")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old_package(args.old, Path(tmp))
        sys.path.insert(0, tmp)
        sites = real_sites(*BNW)
        batches = {k: forked_batch(k, args.bundle, sites) for k in ("nrf_old", "nrf")}
        spent: dict[str, list[tuple[float, float]]] = {k: [] for k in batches}
        for i in range(args.repeats + 1):
            for name in ("nrf_old", "nrf") if i % 2 else ("nrf", "nrf_old"):
                wall, cpu = time.perf_counter(), cpu_seconds()
                batches[name]()
                if i:  # the first round warms both up
                    spent[name].append((time.perf_counter() - wall, cpu_seconds() - cpu))
    for name, label in (("nrf_old", f"old ({args.old})"), ("nrf", "new")):
        wall_ms = statistics.median(w for w, _ in spent[name]) * 1000
        cpu_ms = statistics.median(c for _, c in spent[name]) * 1000
        print(f"{label}: wall {wall_ms:.1f} ms, CPU of all processes {cpu_ms:.1f} ms")


if __name__ == "__main__":
    main()
