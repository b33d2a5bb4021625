"""JobProcesses with real spawned processes killed by SIGKILL: the pool is replaced, not lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.worker.job_processes import JobProcesses
from support.job_process_stubs import init_stub


def processes(tmp_path: Path, die_while_starting: bool = False) -> JobProcesses:
    return JobProcesses(
        WorkerSettings(concurrency=2), init=init_stub, init_args=(str(tmp_path), die_while_starting)
    )


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[JobProcesses]:
    jobs = processes(tmp_path)
    jobs.warm_up()
    yield jobs
    jobs.close()


def test_a_job_process_dying_during_warm_up_is_replaced(tmp_path: Path) -> None:
    jobs = processes(tmp_path, die_while_starting=True)
    try:
        jobs.warm_up()  # the first start dies by SIGKILL; the second pool starts
        assert (tmp_path / "died").exists(), "a job process really died while starting"
        assert jobs.submit("a", "run").result(timeout=30) == "done run"
    finally:
        jobs.close()


def test_the_job_in_the_dead_process_is_told_apart_from_the_one_beside_it(
    pool: JobProcesses,
) -> None:
    beside = pool.submit("beside", "sleep:30")
    time.sleep(0.5)  # let it start in one process, so "die" runs in the other
    dying = pool.submit("dying", "die")
    for future in (beside, dying):  # a broken pool fails every job it holds
        with pytest.raises(BrokenProcessPool):
            future.result(timeout=30)

    assert pool.recover() is True
    assert pool.died_running("dying") is True
    assert pool.died_running("beside") is False
    assert pool.submit("next", "run").result(timeout=30) == "done run"
    assert pool.recover() is False, "a healthy pool is left alone"


def test_submit_after_an_idle_job_process_was_killed_replaces_the_pool(
    pool: JobProcesses,
) -> None:
    for future in [pool.submit(str(n), "sleep:0.5") for n in range(2)]:
        future.result(timeout=30)
    victim = next(iter(pool._pool._processes))
    os.kill(victim, signal.SIGKILL)
    time.sleep(1.0)  # the pool notices and marks itself broken

    assert pool.submit("after", "run").result(timeout=30) == "done run"


KILLED_WORKER = """
import sys
from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.worker.job_processes import JobProcesses
JobProcesses(WorkerSettings(concurrency=1), marks_root=sys.argv[1])
print("ready", flush=True)
sys.stdin.read()
"""


def test_the_marks_of_a_killed_worker_are_removed_by_the_next_to_start(tmp_path: Path) -> None:
    root = tmp_path / "tmp"
    root.mkdir()
    worker = subprocess.Popen(
        [sys.executable, "-c", KILLED_WORKER, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
    worker.kill()  # SIGKILL: close() never runs
    worker.wait(30)
    (left,) = root.iterdir()
    assert left.name.startswith(f"nrf-job-marks-{worker.pid}-")
    # A live worker's folder (this process's pid) and one not named by a pid are kept.
    live = root / f"nrf-job-marks-{os.getpid()}-other"
    unnamed = root / "nrf-job-marks-abc"
    live.mkdir()
    unnamed.mkdir()
    jobs = JobProcesses(WorkerSettings(concurrency=1), marks_root=root)
    try:
        own = {p.name for p in root.iterdir()} - {live.name, unnamed.name}
        assert not left.exists()
        assert len(own) == 1 and own.pop().startswith(f"nrf-job-marks-{os.getpid()}-")
    finally:
        jobs.close()
    assert sorted(p.name for p in root.iterdir()) == sorted([live.name, unnamed.name])
