"""`python -m benchmarks.profile_batch BUNDLE [--batches N]`: where a 245-site batch's CPU goes.

The 245 Broads & Wensum sample sites assessed as one batch in this process (the builtin map,
as a batch runs when no CPU is spare), three batches to warm up, then ``--batches`` under
cProfile timed by CPU (the machine is shared; the timer's own cost inflates functions called
many times); prints the CPU per batch (profiled, so inflated) and the top functions.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from datetime import date
from pathlib import Path

from benchmarks.workload import BNW, real_sites
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.rules import DEFAULT_RULE_SET, rule_set_named

QUOTE_DATE = date(2026, 11, 26)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    assess = AssessDevelopments(GeoPackageBoundaryData(args.bundle), map)
    rules, sites = rule_set_named(DEFAULT_RULE_SET), real_sites(*BNW)
    for _ in range(3):
        assess(sites, rules, QUOTE_DATE)
    profile = cProfile.Profile(time.process_time)  # CPU, not wall: the machine is shared
    started = time.process_time()
    profile.enable()
    for _ in range(args.batches):
        assess(sites, rules, QUOTE_DATE)
    profile.disable()
    spent = (time.process_time() - started) * 1000 / args.batches
    print(f"CPU per batch under the profiler: {spent:.1f} ms ({args.batches} batches)")
    pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
