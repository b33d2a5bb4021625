"""The project's own path: GeoPackageBoundaryData + AssessDevelopments, one call per job.

Configured as `nrf assess` is on this machine: a batch split over up to 8 processes (the CPUs);
a one-site job always runs in the calling process.
"""

from __future__ import annotations

import os
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks import figures
from benchmarks.timing import (
    children_peak_rss_mb,
    median,
    ms_since,
    repeat_ms,
    repeat_ms_cpu,
    timed,
)
from benchmarks.workload import Workload
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.rules import RuleSet

QUOTE_DATE = date(2026, 11, 26)  # inside the synthetic Norfolk charge's first window

PROCESSES = min(8, os.cpu_count() or 1)


def first_job(bundle: Path, workload: Workload, rules: RuleSet) -> dict[str, Any]:
    """Imports are done, the bundle untouched: open it and assess the small site."""
    started = time.perf_counter()
    repo = GeoPackageBoundaryData(bundle)
    opened = ms_since(started)
    AssessDevelopments(repo, ForkedSiteMap(PROCESSES))(workload.small, rules, QUOTE_DATE)
    return {"open_ms": round(opened, 3), "first_job_ms": round(ms_since(started), 3)}


def run(bundle: Path, workload: Workload, rules: RuleSet, repeats: int) -> dict[str, Any]:
    setup_ms, repo = timed(lambda: GeoPackageBoundaryData(bundle))
    assess = AssessDevelopments(repo, ForkedSiteMap(PROCESSES))
    first_ms, _ = timed(lambda: assess(workload.small, rules, QUOTE_DATE))
    small_ms, small_run = repeat_ms(lambda: assess(workload.small, rules, QUOTE_DATE), repeats * 10)
    bnw_ms, bnw_cpu, bnw_run = repeat_ms_cpu(
        lambda: assess(workload.bnw, rules, QUOTE_DATE), repeats
    )
    per_site: list[tuple[int, float]] = []
    out: dict[str, figures.Figures] = {}
    started = time.perf_counter()
    for dev in workload.random:
        ms, job = timed(lambda d=dev: assess([d], rules, QUOTE_DATE))  # type: ignore[misc]
        per_site.append((-1, round(ms, 3)))
        outcome = (job.sites or job.out_of_scope)[0]
        out[f"random:{dev.rlb_id}"] = figures.from_outcome(outcome)
    total_s = time.perf_counter() - started
    # Polygons touched (read by bbox), counted outside the timed loop.
    per_site = [
        (len(repo.reference_for(dev.boundary).coefficients), ms)
        for dev, (_, ms) in zip(workload.random, per_site, strict=True)
    ]
    for run_ in (small_run, bnw_run):
        for outcome in (*run_.sites, *run_.out_of_scope):
            prefix = "small" if run_ is small_run else "bnw"
            out[f"{prefix}:{outcome.site.rlb_id}"] = figures.from_outcome(outcome)
    return {
        "processes": PROCESSES,
        "setup_ms": round(setup_ms, 3),
        "first_assessment_ms": round(first_ms, 3),
        "small_ms": small_ms,
        "small_median_ms": median(small_ms),
        "bnw_ms": bnw_ms,
        "bnw_median_ms": median(bnw_ms),
        "bnw_cpu_ms": bnw_cpu,
        "bnw_cpu_median_ms": median(bnw_cpu),
        "child_peak_rss_mb": children_peak_rss_mb(),
        "random_n": len(workload.random),
        "random_seconds": round(total_s, 3),
        "random_jobs_per_s": round(len(workload.random) / total_s, 1) if total_s else None,
        "random_median_ms": median([ms for _, ms in per_site]),
        "random_per_site": per_site,
        "figures": out,
    }
