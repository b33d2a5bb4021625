"""`scripts/load`: jobs through two real `nrf worker` processes on a local SQS; figures and checks.

A burst (all sent at once) measures throughput; a paced phase at a share of that throughput
measures latency without a backlog. Every job is then counted: one status.json, one job_stored
event, one final email, queue and DLQ empty. Exit status 1 when any check fails.
"""

from __future__ import annotations

import argparse
import atexit
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the test support: fake Notify, queues, worker processes

from benchmarks.load_checks import check_run, latency_summary  # noqa: E402
from benchmarks.load_jobs import LoadJob, build_jobs  # noqa: E402
from benchmarks.load_report import machine, render, resident_mb  # noqa: E402
from support.fake_notify import running_fake_notify  # noqa: E402
from support.moto_server import aws_client, free_port  # noqa: E402
from support.worker_jobs import make_queues, queue_counts, worker_env  # noqa: E402
from support.worker_process import WorkerProcess  # noqa: E402


@contextmanager
def moto_process() -> Iterator[str]:
    """moto's server in its own process, so the driver's threads do not slow the queue."""
    port = free_port()
    argv = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/moto-api/", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("moto server did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        with suppress(subprocess.TimeoutExpired):
            process.wait(10)


def send_burst(sqs: Any, url: str, jobs: Sequence[LoadJob]) -> list[tuple[str, float]]:
    """(job id, enqueue time) per job, sent ten to a batch; the time is taken before the call."""
    sent = []
    for start in range(0, len(jobs), 10):
        batch = jobs[start : start + 10]
        at = time.time()
        entries = [{"Id": str(i), "MessageBody": job.body} for i, job in enumerate(batch)]
        answer = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        if answer.get("Failed"):
            raise RuntimeError(f"send failed: {answer['Failed']}")
        ids = {int(item["Id"]): item["MessageId"] for item in answer["Successful"]}
        sent += [(job.job_id or f"message-{ids[i]}", at) for i, job in enumerate(batch)]
    return sent


def send_paced(sqs: Any, url: str, jobs: Sequence[LoadJob], rate: float) -> list[tuple[str, float]]:
    """One message every 1/rate seconds (open loop: the schedule never waits for the workers)."""
    sent, begin = [], time.monotonic()
    for i, job in enumerate(jobs):
        delay = begin + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        at = time.time()
        message_id = sqs.send_message(QueueUrl=url, MessageBody=job.body)["MessageId"]
        sent.append((job.job_id or f"message-{message_id}", at))
    return sent


def finished_at(workers: Sequence[WorkerProcess], job_ids: Sequence[str], timeout: float) -> dict:
    """job id -> the log time of its first job_finished, once every job has one."""
    deadline, wanted = time.monotonic() + timeout, set(job_ids)
    while True:
        seen: dict[str, float] = {}
        for worker in workers:
            for event in worker.matching("job_finished"):
                seen.setdefault(event["job_id"], float(event["ts"]))
        if wanted <= set(seen):
            return {j: seen[j] for j in job_ids}
        if time.monotonic() > deadline or any(w.process.poll() is not None for w in workers):
            missing = sorted(wanted - set(seen))
            raise RuntimeError(f"{len(missing)} jobs unfinished, e.g. {missing[:5]}")
        time.sleep(0.2)


def _latencies(sent: Sequence[tuple[str, float]], stored: dict[str, float]) -> list[float]:
    return [(stored[j] - at) * 1000 for j, at in sent if j in stored]


def run(args: argparse.Namespace) -> dict[str, Any]:
    jobs = build_jobs(args.jobs, args.seed)
    burst_n = int(len(jobs) * args.burst_share)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="nrf-load-"))
    results = work / "results"
    if not args.work:
        atexit.register(shutil.rmtree, work, ignore_errors=True)
    with ExitStack() as stack:
        endpoint = stack.enter_context(moto_process())
        notify = stack.enter_context(running_fake_notify())
        sqs = aws_client("sqs", endpoint)
        queues = make_queues(sqs, "nrf_load", max_receive_count=3)
        workers = []
        for _ in range(args.workers):
            env = worker_env(
                endpoint,
                queues.name,
                results,
                free_port(),
                notify,
                WORKER_CONCURRENCY=str(args.concurrency),
                AWS_SQS_MAX_MESSAGES=str(args.concurrency),
            )
            worker = WorkerProcess(env).start()
            stack.callback(worker.close)
            workers.append(worker)
        for worker in workers:
            worker.wait_for("worker_started", timeout=120)

        began = time.time()
        burst = send_burst(sqs, queues.url, jobs[:burst_n])
        burst_done = finished_at(workers, [j for j, _ in burst], timeout=60 + 2 * len(burst))
        burst_seconds = max(burst_done.values()) - burst[0][1]
        throughput = len(burst) / burst_seconds
        rate = max(1.0, throughput * args.paced_share)
        paced = send_paced(sqs, queues.url, jobs[burst_n:], rate)
        paced_done = finished_at(workers, [j for j, _ in paced], timeout=60 + 2 * len(paced))
        counts = {
            name: queue_counts(sqs, url)
            for name, url in (("queue", queues.url), ("dlq", queues.dlq_url))
        }
        memory = {f"worker-{i + 1}": resident_mb(w.process.pid) for i, w in enumerate(workers)}
        codes = [w.stop(timeout=90) for w in workers]
        events = [e for w in workers for e in w.events]

    sent = burst + paced
    expected = {}
    for (job_id, _), job in zip(sent, jobs, strict=True):
        expected[job_id] = {
            "status": job.expected_status,
            "code": job.expected_code,
            "emails": job.emails,
            "kind": job.kind,
        }
    stored = {e["job_id"]: float(e["ts"]) for e in events if e.get("event") == "job_stored"}
    service = []
    for job_id, want in expected.items():
        timing = results / job_id / "timings.json"
        if want["status"] == "succeeded" and timing.exists():
            service.append(json.loads(timing.read_text())["seconds"] * 1000)
    checks = check_run(expected, results, events, notify.emails, counts, codes)
    per_worker = {
        f"worker-{i + 1}": sum(1 for e in w.events if e.get("event") == "job_finished")
        for i, w in enumerate(workers)
    }
    return {
        "command": "scripts/load " + " ".join(sys.argv[1:]),
        "machine": machine(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(began)),
        "settings": {
            "jobs": len(jobs),
            "workers": args.workers,
            "concurrency": args.concurrency,
            "seed": args.seed,
            "burst_jobs": len(burst),
            "paced_jobs": len(paced),
            "paced_share": args.paced_share,
            "notifier": "fake GOV.UK Notify (HTTP)",
            "result_store": "local",
            "queue": "moto SQS server (own process)",
        },
        "mix": {k: sum(1 for j in jobs if j.kind == k) for k in ("real", "random", "invalid")},
        "throughput": {
            "jobs": len(burst),
            "seconds": round(burst_seconds, 2),
            "jobs_per_s": round(throughput, 1),
        },
        "latency_burst_ms": latency_summary(_latencies(burst, stored)),
        "latency_paced_ms": latency_summary(_latencies(paced, stored)),
        "paced": {
            "jobs": len(paced),
            "rate_jobs_per_s": round(rate, 1),
            "seconds": round(max(paced_done.values()) - paced[0][1], 2) if paced else 0,
        },
        "service_ms": latency_summary(service),
        "jobs_per_worker": per_worker,
        "memory_mb": memory,
        "notifications": len(notify.emails),
        "checks": checks,
        "ok": all(c["ok"] for c in checks.values()),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/load", description=__doc__)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=1, help="job processes per worker")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--burst-share", type=float, default=0.5, help="share sent at once")
    parser.add_argument(
        "--paced-share",
        type=float,
        default=0.6,
        help="paced rate as a share of the burst throughput",
    )
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--work", default=None, help="results folder of the run (kept)")
    args = parser.parse_args(argv)
    report = run(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "load.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "load.md").write_text(render(report))
    print(render(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
