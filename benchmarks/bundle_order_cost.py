"""`python -m benchmarks.bundle_order_cost A.gpkg B.gpkg [...] --repeats 21`: the same code
over bundles that differ only in how their parcels are stored, alternated in one process.

Made for issue 32's rig: its bundle is built from a delivery in the delivery's order, ours is
generated in grid order (``benchmarks.shuffled_bundle`` makes the other orders). Each round
assesses the 245 Broads & Wensum samples as one batch on every bundle in turn (the order of
the bundles reversed every other round, so the machine's load hits all alike), timing CPU
(``process_time``) per batch and per batch read (``references_for``), and one random site's
job. Before timing, each bundle's batch is compared with the first's at 2 dp and the figures
that moved are counted (summing a site's pieces in another order moves an area in its last
bits, which can tip a half-penny rounding).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import date
from pathlib import Path

from benchmarks.old_vs_new import RANDOM_SEED
from benchmarks.penny_check import differences
from benchmarks.workload import BNW, random_sites, real_sites
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.rules import DEFAULT_RULE_SET, rule_set_named
from nrf.domain.serialization import unstructure

QUOTE_DATE = date(2026, 11, 26)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bundles", type=Path, nargs="+")
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--random", type=int, default=50)
    args = parser.parse_args()
    rules, sites = rule_set_named(DEFAULT_RULE_SET), real_sites(*BNW)
    boundaries = [s.boundary for s in sites]
    meta = args.bundles[0].with_suffix(".json")
    extent = json.loads(meta.read_text())["extent"] if meta.is_file() else None
    randoms = random_sites(args.random, RANDOM_SEED, extent) if extent else []
    repos = {b.name: GeoPackageBoundaryData(b) for b in args.bundles}
    uses = {name: AssessDevelopments(repo, map) for name, repo in repos.items()}
    first = None
    for name, use in uses.items():
        doc = unstructure(use(sites, rules, QUOTE_DATE))
        doc.pop("provenance", None)  # the bundle's digest differs by design
        moved: list[str] = [] if first is None else list(differences(first, doc))
        print(f"{name}: {len(moved)} figures differ at 2 dp from {args.bundles[0].name}")
        for line in moved:
            print("  " + line)
        first = first or doc
    parts = {
        "245-site batch": lambda n: uses[n](sites, rules, QUOTE_DATE),
        "reading, one batch (references_for)": lambda n: repos[n].references_for(boundaries),
        "random sites, one job each (sum)": lambda n: [
            uses[n]([d], rules, QUOTE_DATE) for d in randoms
        ],
    }
    cpu: dict[str, dict[str, list[float]]] = {n: {} for n in uses}
    names = list(uses)
    for i in range(args.repeats + 1):
        for name in names if i % 2 == 0 else names[::-1]:
            for part, fn in parts.items():
                started = time.process_time()
                fn(name)
                if i:  # the first round warms every bundle up
                    cpu[name].setdefault(part, []).append((time.process_time() - started) * 1000)
    medians = {n: {p: round(statistics.median(t), 2) for p, t in v.items()} for n, v in cpu.items()}
    print(json.dumps({"cpu_ms": medians}, indent=1))
    print(f"| component (CPU ms, median of {args.repeats}) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for part in parts:
        print(f"| {part} | " + " | ".join(f"{medians[n][part]:.1f}" for n in names) + " |")


if __name__ == "__main__":
    main()
