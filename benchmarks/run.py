"""`python -m benchmarks.run`: generate (once) the national bundle and run every scenario.

scripts/bench                       # 1,000,000 polygons (default)
scripts/bench --polygons 5460000    # the headline run
scripts/bench --quick               # a few thousand polygons, for CI
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import shapely

from benchmarks import pg_cluster, report, worker_bench
from benchmarks import workload as wl
from benchmarks.bundle_cache import cached_bundle
from benchmarks.deployed_env import deployed_env
from benchmarks.figures import mismatches
from benchmarks.shuffled_bundle import cached_shuffled
from benchmarks.timing import log, median

ROOT = Path(__file__).resolve().parent.parent


def machine() -> dict[str, Any]:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    cores = len(os.sched_getaffinity(0))
    return {
        "cpu": cpu,
        "cores": cores,
        "ram_gb": round(ram, 1),
        "python": platform.python_version(),
        "shapely": shapely.__version__,
        "geos": shapely.geos_version_string,
        "sqlite": sqlite3.sqlite_version,
        "os": platform.platform(),
        "summary": f"{cpu}, {cores} cores, {ram:.0f} GB RAM, Python {platform.python_version()}",
    }


NRF_METHODS = ("cold", "nrf")


def child(method: str, args: argparse.Namespace, bundle: Path, work: Path) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "benchmarks.child",
        method,
        "--bundle",
        str(bundle),
        "--workload",
        str(work),
        "--repeats",
        str(args.repeats),
        "--polygons",
        str(args.polygons),
        "--cache",
        str(args.cache),
    ]
    log(f"running {method} ...")
    started = time.perf_counter()
    # nrf is measured with the deployed packages; the naive method needs geopandas.
    env = deployed_env(os.environ) if method in NRF_METHODS else None
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, check=False, env=env)
    if done.returncode != 0:
        return {"skipped": f"failed with exit code {done.returncode} (see stderr above)"}
    result: dict[str, Any] = json.loads(done.stdout)
    log(f"{method}: done in {time.perf_counter() - started:.1f} s")
    return result


SHALLOW_QUEUE = 10


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: the machine is shared, so every run says."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.splitlines()[0])
    parser.add_argument("--polygons", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="tiny and fast, no PostGIS (CI)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--random", type=int, default=1000, help="random sites, one job each")
    parser.add_argument("--worker-jobs", type=int, default=200)
    parser.add_argument("--no-postgis", action="store_true")
    parser.add_argument("--no-naive", action="store_true")
    parser.add_argument("--no-worker", action="store_true")
    parser.add_argument(
        "--simple", action="store_true", help="the old small-layer bundle (5-8 vertex parcels)"
    )
    parser.add_argument(
        "--coarse-catchments",
        action="store_true",
        help="realistic, but NN catchments of 300-1,100 vertices (the issue's rig), not 5,000+",
    )
    parser.add_argument(
        "--shuffled",
        action="store_true",
        help="the bundle's parcels stored in random order, as a delivery built with "
        "`nrf bundle build` may hold them (the rig's), not the generator's grid order",
    )
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    if args.quick:
        args.polygons, args.repeats, args.random, args.worker_jobs = 3000, 2, 30, 8
        args.no_postgis = True
        args.simple = True
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    bundle, meta = cached_bundle(
        args.cache, args.polygons, realistic=not args.simple, coarse=args.coarse_catchments
    )
    if args.shuffled:
        bundle, meta = cached_shuffled(bundle, meta)
    work_path = args.cache / f"workload-{bundle.stem}-{args.random}.pkl"
    work = wl.build(args.random, 20261125, meta["extent"])
    wl.save(work, work_path)
    rep: dict[str, Any] = {
        "machine": machine(),
        "bundle": {**meta, "path": bundle.name},
        # A folder by its name only: a report names nothing of the machine it ran on.
        "args": {k: v.name if isinstance(v, Path) else str(v) for k, v in vars(args).items()},
        "load_average": load_average(),
    }

    cold = [child("cold", args, bundle, work_path) for _ in range(max(3, args.repeats))]
    firsts = [c["first_job_ms"] for c in cold if "first_job_ms" in c]
    rep["cold"] = {"runs": cold, "first_job_median_ms": median(firsts)}
    methods: dict[str, Any] = {"nrf": child("nrf", args, bundle, work_path)}
    methods["floor"] = child("floor", args, bundle, work_path)
    if not args.no_naive:
        methods["naive"] = child("naive", args, bundle, work_path)
    reason = "--no-postgis" if args.no_postgis else pg_cluster.available()
    if reason:
        methods["postgis"] = {"skipped": reason}
    else:
        methods["postgis"] = child("postgis", args, bundle, work_path)
    reference = methods["nrf"].get("figures", {})
    for name, m in methods.items():
        if name != "nrf" and "figures" in m:
            m["mismatches"] = mismatches(reference, m["figures"])
            m["sites_compared"] = len(set(m["figures"]) & set(reference))
    ratios = {}
    for name, m in methods.items():
        if name == "nrf" or "skipped" in m:
            continue
        ratios[name] = {
            k: round(m[k] / methods["nrf"][k], 1)
            for k in ("small_median_ms", "bnw_median_ms", "random_median_ms")
            if m.get(k) and methods["nrf"].get(k)
        }
    rep["ratios_vs_nrf"] = ratios
    if not args.no_worker:
        sites = work.random[: args.worker_jobs]
        in_process = [ms for _, ms in methods["nrf"]["random_per_site"][: len(sites)]]
        in_process_ms = round(sum(in_process) / len(in_process), 3)
        # Headline: at most 10 jobs queued, so moto's whole-queue scan on every receive
        # does not pass for our overhead; then every job at once, for comparison.
        for key, max_queued in (("worker", SHALLOW_QUEUE), ("worker_all_queued", None)):
            one = worker_bench.run(bundle, sites, 1, work.small[0], max_queued)
            one["in_process_ms_per_job"] = in_process_ms
            one["queue_overhead_ms"] = round(one["ms_per_job"] - in_process_ms, 3)
            rep[key] = one
        rep["worker_concurrency_2"] = worker_bench.run(bundle, sites, 2, work.small[0])
    rep["methods"] = methods
    rep["touched"] = report.touched_table(methods["nrf"].get("random_per_site", []))
    rep["targets"] = report.targets(rep)
    for m in methods.values():
        m.pop("figures", None)
    paths = report.write(rep, args.out)
    print(report.markdown(rep))
    print("ratios (method time / nrf time):", json.dumps(ratios))
    for p in paths:
        log(f"wrote {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
