"""The real `nrf worker` when its processes are killed: a job process, or the supervisor itself."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.moto_server import MotoServer, free_port
from support.worker_jobs import job_body, make_queues, queue_counts, status_of, worker_env
from support.worker_process import WorkerProcess, running_worker


def is_running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


def wait_gone(pids: list[int], timeout: float) -> list[int]:
    """The pids still running after ``timeout`` seconds (an empty list once all are gone)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [pid for pid in pids if is_running(pid)]
        if not left:
            return []
        time.sleep(0.2)
    return [pid for pid in pids if is_running(pid)]


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")


@pytest.fixture
def env(aws: MotoServer, tmp_path: Path) -> Iterator[dict[str, str]]:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "deaths")
    yield worker_env(
        aws.endpoint_url,
        queues.name,
        tmp_path / "results",
        free_port(),
        SHUTDOWN_GRACE_SECONDS="2",
        QUEUE_URL_FOR_TEST=queues.url,
    )


def test_a_killed_idle_job_process_is_replaced_without_losing_the_worker_process(
    aws: MotoServer, env: dict[str, str], tmp_path: Path
) -> None:
    # A partial write left by a writer killed two hours ago, and one being written now.
    folder = tmp_path / "results" / "killed-earlier"
    folder.mkdir(parents=True)
    stale, fresh = folder / ".status.json.abc.tmp", folder / ".result.json.def.tmp"
    stale.write_text("{")
    fresh.write_text("{")
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))

    with running_worker(env) as worker:
        worker.wait_for("worker_started", timeout=90)
        assert not stale.exists() and fresh.exists(), "only the stale temporary is swept"
        assert worker.wait_for("temporaries_swept")["count"] == 1

        [job_process] = [e["pid"] for e in worker.matching("job_process_ready")]
        os.kill(job_process, signal.SIGKILL)
        assert wait_gone([job_process], 10) == []
        time.sleep(0.5)  # the pool usually notices the death and marks itself broken by then
        aws.client("sqs").send_message(
            QueueUrl=env["QUEUE_URL_FOR_TEST"], MessageBody=job_body("after-kill", email=None)
        )

        worker.wait_for("job_finished", timeout=90, job_id="after-kill", status="succeeded")
        assert worker.count("worker_process_started") == 1, "no restart was used"
        assert worker.count("worker_process_died") == 0
        assert worker.count("job_process_ready") == 2, "the pool was replaced"
        # Received once, at once (well inside its 600 s visibility). Sent in the instant before
        # the pool saw the death, it breaks with the pool and is handed back (visibility 0) and
        # received again: the one extra receive allowed, and only with that hand-back.
        beside = worker.count("job_handed_back", reason="job_process_died_beside")
        assert beside <= 1 and worker.count("job_received") == 1 + beside
    assert status_of(tmp_path / "results", "after-kill")["status"] == "succeeded"
    assert queue_counts(aws.client("sqs"), env["QUEUE_URL_FOR_TEST"]) == (0, 0)


def test_kill_9_of_the_supervisor_takes_its_whole_tree_with_it(env: dict[str, str]) -> None:
    port = int(env["AWS_HEALTH_PORT"])
    worker: WorkerProcess
    with running_worker(env) as worker:
        worker.wait_for("worker_started", timeout=90)
        deadline = time.monotonic() + 30
        while not port_open(port):
            assert time.monotonic() < deadline, "the health server never listened"
            time.sleep(0.2)
        health = int(worker.wait_for("health_started")["pid"])
        tree = [
            worker.pid_of_worker_process(),
            health,
            *children_of(health),  # gunicorn's worker
            *[int(e["pid"]) for e in worker.matching("job_process_ready")],
        ]
        assert len(tree) >= 4

        os.kill(worker.process.pid, signal.SIGKILL)

        # The worker process drains (SHUTDOWN_GRACE_SECONDS=2) and stops; the rest at once.
        assert wait_gone(tree, 20) == [], worker.transcript()
        assert not port_open(port), "the health server let go of its port"
