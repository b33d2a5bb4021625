"""Random SIGKILLs of a whole worker while jobs run, then restarts; shared by tests and soak."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections import Counter
from pathlib import Path

from attrs import define, field

from support.fake_notify import FakeNotifyServer
from support.moto_server import MotoServer, free_port
from support.worker_jobs import TEMPLATES, job_body, make_queues, queue_counts, worker_env
from support.worker_process import WorkerProcess

FAST_RETRIES = {
    "WORKER_CONCURRENCY": "2",
    "AWS_SQS_MAX_MESSAGES": "2",
    "SQS_VISIBILITY_TIMEOUT": "3",
    "VISIBILITY_HEARTBEAT_SECONDS": "1",
    "VISIBILITY_EXTENSION_SECONDS": "3",
    "NRF_RETRY_BASE_SECONDS": "1",
    "SHUTDOWN_GRACE_SECONDS": "10",
}


@define
class KillReport:
    """What happened, and every way the promise could have been broken (all should be empty)."""

    jobs: int
    kills: int = 0
    seconds: float = 0.0
    redeliveries: int = 0
    stored_twice: list[str] = field(factory=list)
    missing: list[str] = field(factory=list)
    not_told: list[str] = field(factory=list)
    told_twice: list[str] = field(factory=list)
    started_twice: list[str] = field(factory=list)
    pending: list[str] = field(factory=list)
    left_on_queues: tuple[int, int, int, int] = (0, 0, 0, 0)

    @property
    def ok(self) -> bool:
        bad = (
            self.stored_twice,
            self.missing,
            self.not_told,
            self.told_twice,
            self.started_twice,
            self.pending,
        )
        return not any(bad) and self.left_on_queues == (0, 0, 0, 0)


def settled(results: Path, job_id: str) -> bool:
    try:
        status = json.loads((results / job_id / "status.json").read_text())
    except (OSError, ValueError):
        return False
    return not any(n.get("pending") for n in status.get("notifications", []))


def run_kill_scenario(
    aws: MotoServer,
    notify: FakeNotifyServer,
    results: Path,
    *,
    jobs: int,
    kills: int,
    seed: int,
    deadline_seconds: float,
    name: str = "kill_jobs",
    kill_window: float = float("inf"),
) -> KillReport:
    """Send ``jobs`` jobs, SIGKILL the worker up to ``kills`` times at random moments, finish.

    Killing stops after ``kill_window`` seconds or once every job is settled.
    """
    rng = random.Random(seed)
    sqs = aws.client("sqs")
    queues = make_queues(sqs, name, max_receive_count=20)
    job_ids = [f"{name}-{seed}-{i}" for i in range(jobs)]
    for job_id in job_ids:
        sqs.send_message(QueueUrl=queues.url, MessageBody=job_body(job_id))
    report = KillReport(jobs)
    started = time.monotonic()
    workers: list[WorkerProcess] = []
    try:
        while True:
            env = worker_env(
                aws.endpoint_url, queues.name, results, free_port(), notify, **FAST_RETRIES
            )
            worker = WorkerProcess(env).start()
            workers.append(worker)
            worker.wait_for("worker_started", timeout=90)
            out_of_time = time.monotonic() - started > kill_window
            if report.kills >= kills or out_of_time or all(settled(results, j) for j in job_ids):
                break
            # A random point of a random job: a few jobs in, then a random fraction of one.
            seen = worker.count("job_received")
            target = seen + rng.randint(1, 4)
            wait_until = time.monotonic() + 20
            while worker.count("job_received") < target and time.monotonic() < wait_until:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.6))
            os.killpg(worker.process.pid, signal.SIGKILL)
            worker.wait(timeout=30)
            report.kills += 1
        while not all(settled(results, j) for j in job_ids):
            if time.monotonic() - started > deadline_seconds:
                break
            time.sleep(0.2)
        # Let late redeliveries of finished jobs come back and be deleted.
        quiet_until = time.monotonic() + 8
        while sum(queue_counts(sqs, queues.url)) and time.monotonic() < quiet_until:
            time.sleep(0.2)
        workers[-1].stop(signal.SIGTERM, timeout=60)
    finally:
        for worker in workers:
            worker.close()
    report.seconds = round(time.monotonic() - started, 1)
    _judge(report, job_ids, workers, notify, results)
    report.left_on_queues = (*queue_counts(sqs, queues.url), *queue_counts(sqs, queues.dlq_url))
    return report


def _judge(
    report: KillReport,
    job_ids: list[str],
    workers: list[WorkerProcess],
    notify: FakeNotifyServer,
    results: Path,
) -> None:
    stored = Counter(e["job_id"] for w in workers for e in w.matching("job_stored"))
    received = sum(w.count("job_received") for w in workers)
    report.redeliveries = received - len(job_ids)
    emails = Counter((e.get("reference"), e["template_id"]) for e in notify.emails)
    for job_id in job_ids:
        if stored[job_id] > 1:
            report.stored_twice.append(job_id)
        if not (results / job_id / "result.json").exists():
            report.missing.append(job_id)
        elif not settled(results, job_id):
            report.pending.append(job_id)
        told = emails[(job_id, TEMPLATES["COMPLETED"])]
        if told == 0:
            report.not_told.append(job_id)
        if told > 1:
            report.told_twice.append(job_id)
        if emails[(job_id, TEMPLATES["STARTED"])] > 1:
            report.started_twice.append(job_id)
