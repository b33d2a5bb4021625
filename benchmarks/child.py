"""One method in its own process, so its time and peak memory are its own: prints JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks import workload as wl
from benchmarks.timing import peak_rss_mb
from nrf.domain.rules import DEFAULT_RULE_SET, rule_set_named
from nrf.entrypoints.startup_heap import freeze_startup_heap


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("method", choices=["cold", "nrf", "floor", "naive", "postgis"])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--workload", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--polygons", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=Path(".bench-cache"))
    args = parser.parse_args(argv)
    # Everything is imported before the clock starts: "cold" means the bundle is untouched.
    # Only the method's own module: nrf's figures must not carry the naive method's geopandas.
    work = wl.load(args.workload)
    rules = rule_set_named(DEFAULT_RULE_SET)
    if args.method in ("cold", "nrf"):
        from benchmarks import method_nrf

        if args.method == "cold":
            # As a job process does once started (nrf.entrypoints.startup_heap): otherwise a
            # full collection of the import-time heap may fall in the measured job.
            freeze_startup_heap()
            result = method_nrf.first_job(args.bundle, work, rules)
        else:
            result = method_nrf.run(args.bundle, work, rules, args.repeats)
    elif args.method == "floor":
        from benchmarks import method_floor

        result = method_floor.run(args.bundle, work, rules, args.repeats)
    elif args.method == "naive":
        from benchmarks import method_naive

        result = method_naive.run(args.bundle, work, rules, args.repeats, args.polygons)
    else:
        from benchmarks import method_postgis

        result = method_postgis.run(
            args.bundle, work, rules, args.repeats, args.polygons, args.cache
        )
    result["peak_rss_mb"] = peak_rss_mb()
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
