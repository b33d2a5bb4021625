"""End to end: `nrf worker` against moto's SQS on loopback, log notifier, local result store."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import boto3
from moto.server import ThreadedMotoServer

from benchmarks.deployed_env import deployed_env
from benchmarks.pg_cluster import _free_port
from benchmarks.timing import PeakPss, log, pss_mb, vm_hwm_mb
from nrf.adapters.job_queue.job_submission import job_messages
from nrf.domain.model import Development

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
REGION = "eu-west-2"


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo.extend(children.get(found[-1], []))
    return found


def _wait_for(root: Path, job_ids: list[str], timeout: float) -> float:
    """Seconds until every job has its status.json (written last by the result store)."""
    return _feed(root, [(j, None) for j in job_ids], None, timeout)


def _feed(
    root: Path,
    jobs: Sequence[tuple[str, str | None]],
    send: Any,
    timeout: float,
    max_queued: int | None = None,
) -> float:
    """Send ``jobs`` 10 at a time, at most ``max_queued`` unfinished (None: all at once);
    the seconds until every one has its status.json."""
    started = time.perf_counter()
    sent = done = 0
    limit = max_queued or len(jobs)
    while done < len(jobs):
        while send is not None and sent < len(jobs) and sent - done < limit:
            batch = jobs[sent : sent + 10]
            send([{"Id": str(k), "MessageBody": body} for k, (_, body) in enumerate(batch)])
            sent += len(batch)
        # One file at a time, oldest first: moto's server runs in this process, and
        # checking every file every few ms would take the GIL from it and slow the queue.
        if (root / jobs[done][0] / "status.json").exists():
            done += 1
            continue
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"{len(jobs) - done} jobs unfinished after {timeout:.0f} s")
        time.sleep(0.002)
    return time.perf_counter() - started


def run(
    bundle: Path,
    sites: list[Development],
    concurrency: int,
    warmup: Development,
    max_queued: int | None = None,
) -> dict:
    """Throughput of ``sites`` as one job each, after a warm-up job; worker memory too.

    ``max_queued`` keeps the queue that shallow (None: every job sent at once). moto's
    ReceiveMessage scans the whole queue, so a deep queue slows every receive.
    """
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    host, port = moto.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    work = Path(tempfile.mkdtemp(prefix="nrf-bench-worker-"))
    sqs = boto3.client(
        "sqs",
        endpoint_url=endpoint,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    queue = f"nrf-bench-{concurrency}"
    url = sqs.create_queue(QueueName=queue)["QueueUrl"]
    sqs.create_queue(QueueName=f"{queue}_dlq")
    # As deployed: without the benchmark's geopandas and pandas (benchmarks/deployed_env.py).
    env = deployed_env(
        {
            **os.environ,
            **CREDENTIALS,
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_REGION": REGION,
            "AWS_SQS_QUEUE_NAME": queue,
            "AWS_SQS_WAIT_TIME_SECONDS": "2",
            "AWS_SQS_MAX_MESSAGES": str(concurrency),
            "WORKER_CONCURRENCY": str(concurrency),
            "AWS_HEALTH_PORT": str(_free_port()),
            "NRF_HEALTH_HOST": "127.0.0.1",
            "NRF_REFERENCE_DATA": str(bundle),
            "NRF_ALLOW_SYNTHETIC_DATA": "true",
            "NRF_NOTIFIER": "log",
            "NRF_RESULT_STORE": "local",
            "NRF_RESULTS_DIR": str(work / "results"),
        }
    )
    results = work / "results"
    with open(work / "worker.log", "wb") as worker_log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "nrf.entrypoints.cli", "worker"],
            env=env,
            stdout=worker_log,
            stderr=subprocess.STDOUT,
        )
    # From the start (the bundle opened, the first job) to the last job, every 0.25 s.
    pss_peak = PeakPss(lambda: _descendants(worker.pid), interval=0.25).__enter__()
    try:
        started = time.perf_counter()
        ((wid, body),) = job_messages([warmup], "warmup", "bench@example.gov.uk")
        sqs.send_message(QueueUrl=url, MessageBody=body)
        _wait_for(results, [wid], 120)
        ready_s = time.perf_counter() - started
        messages = list(job_messages(sites, f"c{concurrency}", "bench@example.gov.uk"))
        seconds = _feed(
            results,
            messages,
            lambda entries: sqs.send_message_batch(QueueUrl=url, Entries=entries),
            600,
            max_queued,
        )
        outcomes = Counter(
            json.loads((results / j / "status.json").read_text())["status"] for j, _ in messages
        )
        if set(outcomes) != {"succeeded"}:
            # Timing failed jobs would measure the wrong thing: stop the report here.
            raise RuntimeError(f"worker benchmark jobs did not all succeed: {dict(outcomes)}")
        pss_peak.__exit__()
        hwm = {pid: vm_hwm_mb(pid) for pid in _descendants(worker.pid)}
        pss = {pid: pss_mb(pid) for pid in hwm}
        log(f"worker x{concurrency}: {len(sites)} jobs in {seconds:.2f} s")
        return {
            "concurrency": concurrency,
            "max_queued": max_queued,
            "jobs": len(sites),
            "seconds": round(seconds, 3),
            "jobs_per_s": round(len(sites) / seconds, 1),
            "outcomes": dict(outcomes),
            "ms_per_job": round(seconds * 1000 / len(sites), 3),
            "first_job_after_start_s": round(ready_s, 2),
            "peak_rss_mb_by_process": {str(k): v for k, v in hwm.items() if v is not None},
            "peak_rss_mb_max": max((v for v in hwm.values() if v is not None), default=None),
            # After the jobs: shared library pages counted once across the processes.
            "pss_mb_sum_after": round(sum(v for v in pss.values() if v is not None), 1),
            # The most the worker's processes held together at any sample, each shared page
            # counted once: the measure (PSS).
            "pss_mb_sum_peak": pss_peak.peak_mb,
            "pss_samples": pss_peak.samples,
        }
    finally:
        pss_peak.__exit__()
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(60)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        moto.stop()
        shutil.rmtree(work, ignore_errors=True)
