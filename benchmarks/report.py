"""Targets, ratios and the Markdown tables of a benchmark report.

Over 200 lines on purpose: the target rows and the tables that print them change together.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

# The targets (2 cores, 5.46 M parcels, realistic bundle): (key, label, limit in the
# row's unit, or None; how many times faster/cheaper than PostGIS nrf must be, or None).
TARGETS = [
    ("small_ms", "one small site, warm (ms)", 1.0, None),
    ("bnw_ms", "245 sites as one batch (ms)", 150.0, 2.0),
    ("bnw_cpu_ms", "CPU per 245-site batch, all processes (ms)", None, 2.0),
    ("random_ms", "random 0.1-100 ha site, median (ms)", 2.0, 2.0),
    ("first_job_ms", "first job in a fresh process, bundle on disk (ms)", 100.0, None),
    ("peak_rss_mb", "peak memory, all processes (MB, PSS)", 500.0, None),
    ("queue_overhead_ms", "queue overhead per job (ms)", 50.0, None),
]
BINS = [(0, 10), (10, 30), (30, 100), (100, 300), (300, 10**9)]


def _rss(m: dict[str, Any], *extra: str) -> float | None:
    if "skipped" in m or m.get("peak_rss_mb") is None:
        return None
    return round(m["peak_rss_mb"] + sum(m.get(k) or 0.0 for k in extra), 1)


def row_values(report: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per target key, the figure of nrf, PostGIS and the floor (None where not measured)."""
    methods = report["methods"]
    nrf, pg, floor = (methods.get(k, {"skipped": "-"}) for k in ("nrf", "postgis", "floor"))
    cold, worker = report.get("cold", {}), report.get("worker", {})

    def get(m: dict[str, Any], key: str) -> float | None:
        return None if "skipped" in m else m.get(key)

    # All processes, as the issue measures memory (PSS: a page shared by several processes
    # split between them): the in-process run's peak RSS plus its largest forked child's (RSS
    # is never below PSS, so this overstates it), or the worker's sampled peak PSS at the
    # deployed concurrency (supervisor, loop, job process), whichever is more.
    nrf_rss = _rss(nrf, "child_peak_rss_mb")
    # A report from before the PSS was sampled: the worker's peak RSS added up instead.
    worker_pss = [
        r["pss_mb_sum_peak"]
        if r.get("pss_mb_sum_peak") is not None
        else round(sum(r["peak_rss_mb_by_process"].values()), 1)
        for r in (worker, report.get("worker_all_queued", {}))
        if r.get("pss_mb_sum_peak") is not None or r.get("peak_rss_mb_by_process")
    ]
    if nrf_rss is not None and worker_pss:
        nrf_rss = max(nrf_rss, *worker_pss)
    return {
        "small_ms": {
            "nrf": get(nrf, "small_median_ms"),
            "postgis": get(pg, "small_median_ms"),
            "floor": get(floor, "small_median_ms"),
        },
        "bnw_ms": {
            "nrf": get(nrf, "bnw_median_ms"),
            "postgis": get(pg, "bnw_median_ms"),
            "floor": get(floor, "bnw_median_ms"),
        },
        "bnw_cpu_ms": {
            "nrf": get(nrf, "bnw_cpu_median_ms"),
            "postgis": get(pg, "bnw_cpu_median_ms"),
            "floor": get(floor, "bnw_cpu_median_ms"),
        },
        "random_ms": {
            "nrf": get(nrf, "random_median_ms"),
            "postgis": get(pg, "random_median_ms"),
            "floor": get(floor, "random_median_ms"),
        },
        "first_job_ms": {
            "nrf": cold.get("first_job_median_ms"),
            "postgis": get(pg, "small_fresh_connection_median_ms"),
            "floor": get(floor, "setup_ms"),
        },
        "peak_rss_mb": {"nrf": nrf_rss, "postgis": _rss(pg, "server_rss_mb"), "floor": _rss(floor)},
        "queue_overhead_ms": {
            "nrf": worker.get("queue_overhead_ms"),
            "postgis": None,
            "floor": None,
        },
    }


def targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target row: the three methods' figures, nrf's advantage, met and by how much."""
    values = row_values(report)
    out = []
    for key, label, limit, times in TARGETS:
        v = values[key]
        nrf, pg = v["nrf"], v["postgis"]
        advantage = round(pg / nrf, 2) if nrf and pg else None
        checks: list[bool] = []
        words: list[str] = []
        if limit is not None and nrf is not None:
            checks.append(nrf <= limit)
            factor = nrf / limit
            words.append(
                f"{(1 - factor) * 100:.0f} % under {limit:g}"
                if factor <= 1
                else f"**{factor:.2f}× the {limit:g} limit**"
            )
        if times is not None and advantage is not None:
            checks.append(advantage >= times)
            words.append(
                f"{advantage:g}× PostGIS (goal {times:g}×)"
                if advantage >= times
                else f"**only {advantage:g}× PostGIS (goal {times:g}×)**"
            )
        met = all(checks) if checks and (times is None or advantage is not None) else None
        if checks and times is not None and advantage is None:
            words.append("PostGIS not run")
            met = all(checks) if limit is not None else None
        out.append(
            {
                "key": key,
                "label": label,
                "limit": limit,
                "times_postgis": times,
                "nrf": nrf,
                "postgis": pg,
                "floor": v["floor"],
                "nrf_vs_postgis": advantage,
                "met": met,
                "by_how_much": "; ".join(words) or "-",
                "value": nrf,
            }
        )
    return out


def _goal(t: dict[str, Any]) -> str:
    parts = []
    if t["limit"] is not None:
        parts.append(f"≤ {t['limit']:g}")
    if t["times_postgis"] is not None:
        parts.append(f"≥ {t['times_postgis']:g}× PostGIS")
    return ", ".join(parts)


def why_not_met(report: dict[str, Any]) -> list[str]:
    """For each missed target, a pointer to the written explanation."""
    return [
        f"* {t['label']}: see docs/benchmark.md, 'What is not met'."
        for t in report["targets"]
        if t["met"] is False
    ]


def worker_memory(report: dict[str, Any]) -> list[str]:
    """The worker's memory both ways: PSS (the target's measure) and RSS added up."""
    out = []
    for key, label in (
        ("worker", "at most 10 jobs queued"),
        ("worker_all_queued", "all jobs queued at once"),
        ("worker_concurrency_2", "2 job processes"),
    ):
        r = report.get(key, {})
        if r.get("pss_mb_sum_peak") is None:
            continue
        rss = sum((r.get("peak_rss_mb_by_process") or {}).values())
        out.append(
            f"* worker, {label}: peak PSS {r['pss_mb_sum_peak']:,.1f} MB "
            f"({r['pss_samples']} samples), {r['pss_mb_sum_after']:,.1f} MB after the jobs; "
            f"each process's peak RSS added up {rss:,.1f} MB (shared pages counted once "
            f"per process)"
        )
    return (
        [
            "",
            (
                "Worker memory (its processes together, sampled every 0.25 s; run with the "
                "deployed packages, without the benchmark's geopandas and pandas):"
            ),
            "",
            *out,
        ]
        if out
        else []
    )


def touched_table(per_site: list[list[float]]) -> list[dict[str, Any]]:
    """Median time of random jobs by how many coefficient polygons their bbox read."""
    rows = []
    for lo, hi in BINS:
        times = [ms for n, ms in per_site if lo <= n < hi]
        if times:
            label = f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+"
            rows.append(
                {
                    "polygons_touched": label,
                    "jobs": len(times),
                    "median_ms": round(statistics.median(times), 3),
                }
            )
    return rows


def _cell(m: dict[str, Any], key: str, unit: str = "ms") -> str:
    if "skipped" in m:
        return "not run"
    value = m.get(key)
    if value is None:
        return "-"
    if value >= 10_000:
        return f"{value / 1000:,.1f} s"
    return f"{value:,.2f} {unit}" if value < 10 else f"{value:,.1f} {unit}"


def markdown(report: dict[str, Any]) -> str:
    n = report["bundle"]["polygons"]
    kind = report["bundle"].get("kind", "simple")
    load = report.get("load_average")
    lines = [
        f"### {n:,} coefficient polygons, {kind} bundle ({report['machine']['summary']}"
        + (f"; load average {load}" if load else "")
        + ")",
        "",
        "| method | 1 small site | 245 sites, one batch | random 0.1–100 ha site | "
        "jobs/s | peak RSS | same figures |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in report["methods"].items():
        if "skipped" in m:
            lines.append(f"| {name} | not run: {m['skipped']} | | | | | |")
            continue
        small = _cell(m, "small_median_ms")
        if "small_fresh_connection_median_ms" in m:
            small += f" ({_cell(m, 'small_fresh_connection_median_ms')} fresh connection)"
        same = m.get("mismatches")
        same_text = (
            "reference" if name == "nrf" else ("yes" if same == [] else f"{len(same)} differ")
        )
        rss = f"{m.get('peak_rss_mb', 0):,.0f} MB"
        if m.get("server_rss_mb"):
            rss += f" + server {m['server_rss_mb']:,.0f} MB"
        lines.append(
            f"| {name} | {small} | {_cell(m, 'bnw_median_ms')} | "
            f"{_cell(m, 'random_median_ms')} | {m.get('random_jobs_per_s', '-')} | "
            f"{rss} | {same_text} |"
        )
    lines += [
        "",
        "| scenario | goal | nrf | PostGIS | floor | PostGIS ÷ nrf | met | by how much |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in report["targets"]:
        cells = ["-" if t[k] is None else f"{t[k]:,.2f}" for k in ("nrf", "postgis", "floor")]
        ratio = "-" if t["nrf_vs_postgis"] is None else f"{t['nrf_vs_postgis']:g}×"
        met = {True: "yes", False: "**no**", None: "-"}[t["met"]]
        lines.append(
            f"| {t['label']} | {_goal(t)} | "
            + " | ".join(cells)
            + f" | {ratio} | {met} | {t['by_how_much']} |"
        )
    b = report["bundle"]
    if b.get("generate_seconds") is not None:
        hashed, vouched = b.get("hash_seconds") or 0, b.get("vouch_seconds") or 0
        size = (b.get("size") or 0) / (1 << 20)
        lines += [
            "",
            f"Building the bundle ({b.get('kind', 'simple')}): "
            f"{b['generate_seconds']:,.1f} s to generate, {hashed:,.1f} s to hash, "
            f"{vouched:,.1f} s to check every geometry and vouch for the digest; "
            f"{size:,.0f} MiB.",
        ]
        if b.get("layers"):
            stats = [
                f"{name} {v['features']:,} features, "
                f"{v['min_vertices']:,}-{v['max_vertices']:,} vertices"
                for name, v in b["layers"].items()
            ]
            lines.append("Small layers: " + "; ".join(stats) + ".")
    lines += [
        "",
        "First job: nrf opens the bundle and assesses the small site in a fresh "
        "process; PostGIS is a new connection and the small site's query; the floor "
        "is its setup (decoding the whole layer).",
    ]
    deep = report.get("worker_all_queued", {}).get("queue_overhead_ms")
    shallow = report.get("worker", {}).get("queue_overhead_ms")
    if deep is not None and shallow is not None:
        lines += [
            "",
            f"Queue overhead is measured with at most {report['worker']['max_queued']} "
            f"jobs queued; with all {report['worker']['jobs']} queued at once it is "
            f"{deep:,.1f} ms, because moto's ReceiveMessage scans the whole queue "
            f"(see docs/benchmark.md).",
        ]
    lines += worker_memory(report)
    why = why_not_met(report)
    if why:
        lines += ["", "Why the missed targets are missed:", "", *why]
    ratios = report.get("ratios_vs_nrf", {})
    if ratios:
        lines += [
            "",
            "| method time ÷ nrf time | 1 small site | 245 sites | random site |",
            "|---|---|---|---|",
        ]
        for name, r in ratios.items():
            cells = [
                f"{r[k]:g}×" if k in r else "-"
                for k in ("small_median_ms", "bnw_median_ms", "random_median_ms")
            ]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if report.get("touched"):
        lines += ["", "| polygons touched by a random job | jobs | median ms |", "|---|---|---|"]
        lines += [
            f"| {r['polygons_touched']} | {r['jobs']} | {r['median_ms']} |"
            for r in report["touched"]
        ]
    return "\n".join(lines) + "\n"


def write(report: dict[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    kind = report["bundle"].get("kind", "simple")
    stem = f"report-{report['bundle']['polygons']}"
    if kind != "simple":
        stem = f"report-{kind}-{report['bundle']['polygons']}"
    json_path, md_path = out / f"{stem}.json", out / f"{stem}.md"
    json_path.write_text(json.dumps(report, indent=1) + "\n")
    md_path.write_text(markdown(report))
    summary = out / "summary.md"
    parts = []
    for p in sorted(out.glob("report-*.json"), key=lambda p: ("realistic" not in p.name, p.name)):
        old = json.loads(p.read_text())
        parts.append(markdown({**old, "targets": targets(old)}))
    summary.write_text(
        "## Benchmark (synthetic national layer; `scripts/bench`)\n\n" + "\n".join(parts)
    )
    return [json_path, md_path, summary]
