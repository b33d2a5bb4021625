"""The benchmark's quick mode runs end to end, so it never rots (no timing is asserted)."""

import json
import subprocess
import sys
from pathlib import Path

from support.sample_facts import BNW_SITES

ROOT = Path(__file__).resolve().parents[2]
BENCH_BUILD = (sys.executable, "-m", "benchmarks.bundle_build")


def test_quick_benchmark_writes_a_report_and_every_method_agrees(tmp_path: Path) -> None:
    out = tmp_path / "results"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.run",
            "--quick",
            "--cache",
            str(tmp_path / "cache"),
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((out / "report-3000.json").read_text())
    # --quick sets 3,000 polygons, 30 random sites and 8 worker jobs (benchmarks/run.py).
    assert report["bundle"]["polygons"] == 3000
    methods = report["methods"]
    assert "skipped" in methods["postgis"]
    for name in ("floor", "naive"):
        # 1 small + 245 real + 30 random sites, each checked against nrf to the penny.
        assert methods[name]["mismatches"] == [], name
    assert methods["floor"]["sites_compared"] == 1 + BNW_SITES + 30
    assert methods["nrf"]["random_n"] == 30 and len(methods["nrf"]["random_per_site"]) == 30
    assert report["worker"]["jobs"] == 8 and "queue_overhead_ms" in report["worker"]
    # The worker's memory as the issue measures it: its processes' PSS summed while it ran
    # (at least the interpreter and its libraries), never above their peak RSS added up.
    worker = report["worker"]
    rss_sum = sum(worker["peak_rss_mb_by_process"].values())
    assert worker["pss_samples"] >= 1 and 30 < worker["pss_mb_sum_peak"] <= rss_sum
    memory = next(t for t in report["targets"] if t["key"] == "peak_rss_mb")
    assert memory["nrf"] >= worker["pss_mb_sum_peak"]
    # A report names no folder of the machine it ran on.
    assert str(tmp_path) not in (out / "report-3000.json").read_text()
    assert [t["key"] for t in report["targets"]] == [
        "small_ms",
        "bnw_ms",
        "bnw_cpu_ms",
        "random_ms",
        "first_job_ms",
        "peak_rss_mb",
        "queue_overhead_ms",
    ]
    # Every row has nrf's own figure; the CPU per batch was read for nrf and the floor.
    assert all(t["nrf"] is not None for t in report["targets"])
    assert methods["nrf"]["bnw_cpu_median_ms"] > 0 and methods["floor"]["bnw_cpu_median_ms"] > 0
    assert report["bundle"]["kind"] == "simple" and "vouch_seconds" in report["bundle"]
    summary = (out / "summary.md").read_text()
    assert "| nrf |" in summary and "3,000 coefficient polygons" in summary
    assert "| scenario | goal | nrf | PostGIS | floor |" in summary


def test_bench_build_of_a_small_delivery_passes_the_gate(tmp_path: Path) -> None:
    """5,000 parcels of ~2.4 ha tile ~12,000 ha, far less than the Norfolk design's catchments;
    the frame blocks cover the rest, so the gate finds no coverage_gap and the bundle is written
    (exit 0; it was exit 5 before the frame)."""
    done = subprocess.run(
        [*BENCH_BUILD, "--polygons", "5000", "--work", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["exit_code"] == 0 and result["bundle_bytes"] > 0
    assert "coverage_gap" not in done.stderr
    # The extent is 65.5 km x 70.3 km: 33 x 36 blocks of 2 km (the last row and column
    # narrower), less those the grid's ~11 km square wholly covers; so more than 5,000 but
    # fewer than 5,000 + 33 x 36 = 6,188 polygons.
    assert 5_000 < result["polygons"] < 6_188
