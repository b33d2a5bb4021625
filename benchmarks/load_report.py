"""The load run's Markdown report, the machine it ran on and the workers' memory."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from benchmarks.timing import vm_hwm_mb
from benchmarks.worker_bench import _descendants

ROOT = Path(__file__).resolve().parents[1]


def machine() -> dict[str, Any]:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in _lines("/proc/cpuinfo")
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory = next(
        (line.split()[1] for line in _lines("/proc/meminfo") if line.startswith("MemTotal:")), "0"
    )
    try:
        git = ["git", "rev-parse", "--short", "HEAD"]
        done = subprocess.run(git, cwd=ROOT, capture_output=True, text=True, check=False)
        commit = done.stdout.strip()
    except OSError:
        commit = ""
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(int(memory) / 1024 / 1024, 1),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "git_commit": commit,
    }


def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


def _vm_rss_mb(pid: int) -> float | None:
    for line in _lines(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def resident_mb(pid: int) -> dict[str, Any]:
    """Peak (VmHWM) and current (VmRSS) resident memory of a process tree."""
    pids = _descendants(pid)
    peaks = {str(p): vm_hwm_mb(p) for p in pids}
    now = {str(p): _vm_rss_mb(p) for p in pids}
    return {
        "peak_per_process": {k: v for k, v in peaks.items() if v is not None},
        "peak_max": max((v for v in peaks.values() if v is not None), default=None),
        "rss_total_at_end": round(sum(v for v in now.values() if v is not None), 1),
    }


def _row(name: str, figures: dict[str, Any]) -> str:
    return (
        f"| {name} | {figures['n']} | {figures['p50']} | {figures['p95']} | {figures['p99']} | "
        f"{figures['max']} |"
    )


def render(report: dict[str, Any]) -> str:
    m, s, t = report["machine"], report["settings"], report["throughput"]
    lines = [
        "## Load run (`scripts/load`)",
        "",
        f"`{report['command'].strip()}` on {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, "
        f"Python {m['python']}, {m['system']}, commit {m['git_commit']}, {report['started_at']}.",
        "",
        f"{s['jobs']} jobs ({report['mix']['real']} real Broads & Wensum sites, "
        f"{report['mix']['random']} random 0.1-100 ha sites, {report['mix']['invalid']} invalid "
        f"messages) through {s['workers']} `nrf worker` processes ({s['concurrency']} job process "
        f"each) on {s['queue']}, {s['notifier']}, {s['result_store']} result store.",
        "",
        f"**Throughput:** {t['jobs_per_s']} jobs/s ({t['jobs']} jobs sent at once, all finished "
        f"{t['seconds']} s after the first was sent).",
        "",
        "| latency, enqueue → result stored (ms) | jobs | p50 | p95 | p99 | max |",
        "|---|---|---|---|---|---|",
        _row(f"paced at {report['paced']['rate_jobs_per_s']} jobs/s", report["latency_paced_ms"]),
        _row("burst (includes waiting behind the backlog)", report["latency_burst_ms"]),
        _row("service time in the job process (timings.json)", report["service_ms"]),
        "",
        "Jobs per worker: "
        + ", ".join(f"{k} {v}" for k, v in report["jobs_per_worker"].items())
        + f"; emails sent to the fake Notify server: {report['notifications']}.",
        "Peak resident memory (largest process of each worker): "
        + ", ".join(f"{k} {v['peak_max']} MB" for k, v in report["memory_mb"].items())
        + ".",
        "",
        "| check | result | detail |",
        "|---|---|---|",
    ]
    for name, check in report["checks"].items():
        lines.append(f"| {name} | {'pass' if check['ok'] else '**FAIL**'} | `{check['detail']}` |")
    lines += ["", f"**All checks {'passed' if report['ok'] else 'did NOT pass'}.**", ""]
    return "\n".join(lines)
