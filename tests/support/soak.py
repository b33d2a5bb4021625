"""`scripts/soak`: the random-kill scenario for longer, its figures written as Markdown."""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

from support.fake_notify import running_fake_notify
from support.kill_scenario import KillReport, run_kill_scenario
from support.moto_server import MotoServer


def markdown(report: KillReport, args: argparse.Namespace, started: str) -> str:
    verdict = "PASS" if report.ok else "FAIL"
    rows = [
        ("jobs", report.jobs),
        ("worker kills (SIGKILL of the whole task)", report.kills),
        ("redeliveries (receives beyond one per job)", report.redeliveries),
        ("wall time, s", report.seconds),
        ("jobs stored twice", len(report.stored_twice)),
        ("jobs lost", len(report.missing)),
        ("completed emails missing", len(report.not_told)),
        ("completed emails sent twice", len(report.told_twice)),
        ("started emails sent twice", len(report.started_twice)),
        ("emails still pending", len(report.pending)),
        ("left on queue / DLQ (visible, in flight)", report.left_on_queues),
    ]
    lines = [
        "# Soak: random SIGKILLs of the worker",
        "",
        f"`scripts/soak --jobs {args.jobs} --minutes {args.minutes} --seed {args.seed}`, "
        f"started {started} on {platform.system()} {platform.machine()}, Python "
        f"{platform.python_version()}; moto server (SQS), local result store, fake Notify.",
        "",
        f"**{verdict}**: every job has exactly one stored result and exactly one completed "
        "email, and the queue and the dead-letter queue are empty."
        if report.ok
        else f"**{verdict}**: see the figures.",
        "",
        "| measure | value |",
        "|---|---|",
        *[f"| {name} | {value} |" for name, value in rows],
        "",
        "Each round starts `nrf worker` (2 job processes, visibility 3 s), waits for one to",
        "four more jobs to be received, sleeps 0-0.6 s and kills the whole process group with",
        "SIGKILL; the next round restarts it. After the kill window the last worker finishes",
        "the queue and is stopped with SIGTERM.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/soak", description=__doc__)
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to keep killing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/soak.md"))
    args = parser.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    aws = MotoServer().start()
    try:
        with running_fake_notify() as notify, tempfile.TemporaryDirectory() as work:
            report = run_kill_scenario(
                aws,
                notify,
                Path(work) / "results",
                jobs=args.jobs,
                kills=10_000,
                seed=args.seed,
                deadline_seconds=args.minutes * 60 + 300,
                name="soak_jobs",
                kill_window=args.minutes * 60,
            )
    finally:
        aws.stop()
    text = markdown(report, args, started)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
