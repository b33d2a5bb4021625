"""SharedMemoryHeartbeatStore across real processes: fork, spawn and attach by name."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from collections.abc import Iterator
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import pytest

import nrf.adapters.heartbeat.shared_memory_heartbeat_store as heartbeat_layout
from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore
from nrf.domain.health import HeartbeatSnapshot, WorkerStatus


@pytest.fixture
def store() -> Iterator[SharedMemoryHeartbeatStore]:
    with SharedMemoryHeartbeatStore.create(now=100.0) as created:
        yield created


def work_in_child(store: SharedMemoryHeartbeatStore) -> None:
    store.set_status(WorkerStatus.RUNNING)
    store.set_ready(bundle_loaded=True, queue_reachable=True)
    store.start_job("NRF-000042", 600.0, now=200.0)
    store.beat(250.0)


def churn_in_child(store: SharedMemoryHeartbeatStore, rounds: int) -> None:
    for n in range(1, rounds + 1):
        store.start_job(f"job-{n}", float(n), now=float(n))
        store.end_job(now=float(n))


def test_a_new_store_is_stopped_with_the_task_start_time(store: SharedMemoryHeartbeatStore) -> None:
    assert store.snapshot() == HeartbeatSnapshot(status=WorkerStatus.STOPPED, task_started_at=100.0)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_child_process_writes_what_the_parent_reads(
    store: SharedMemoryHeartbeatStore, method: str
) -> None:
    context: Any = multiprocessing.get_context(method)
    child = context.Process(target=work_in_child, args=(store,))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert store.snapshot() == HeartbeatSnapshot(
        status=WorkerStatus.RUNNING,
        last_heartbeat=250.0,
        job_id="NRF-000042",
        job_started_at=200.0,
        expected_seconds=600.0,
        task_started_at=100.0,
        bundle_loaded=True,
        queue_reachable=True,
        draining=False,
    )


def test_end_job_clears_the_job_and_draining_is_kept(store: SharedMemoryHeartbeatStore) -> None:
    store.start_job("NRF-000001", 60.0, now=110.0)
    store.set_draining(True)
    store.end_job(now=130.0)
    snapshot = store.snapshot()
    assert (snapshot.job_id, snapshot.job_started_at, snapshot.expected_seconds) == (
        None,
        None,
        None,
    )
    assert (snapshot.last_heartbeat, snapshot.draining) == (130.0, True)


def test_snapshots_are_never_torn_while_another_process_writes(
    store: SharedMemoryHeartbeatStore,
) -> None:
    # The child writes job-n with expected n and start n; a torn read would mix two jobs.
    child = multiprocessing.get_context("fork").Process(target=churn_in_child, args=(store, 20_000))
    child.start()
    seen_jobs = 0
    while child.is_alive():
        snapshot = store.snapshot()
        if snapshot.job_id is not None:
            seen_jobs += 1
            assert snapshot.expected_seconds is not None
            n = int(snapshot.expected_seconds)
            assert snapshot.job_id == f"job-{n}"
            assert snapshot.job_started_at == float(n)
    child.join()
    assert child.exitcode == 0
    assert seen_jobs > 0


READER = (
    "import sys\n"
    "from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore\n"
    "store = SharedMemoryHeartbeatStore.attach(sys.argv[1])\n"
    "print(store.snapshot().job_id)\n"
    "store.close()\n"
)


def test_an_unrelated_process_attaches_by_name_and_leaves_the_block_alone(
    store: SharedMemoryHeartbeatStore,
) -> None:
    store.start_job("NRF-000007", 10.0, now=101.0)
    for _ in range(2):  # the second read proves the first reader's exit unlinked nothing
        out = subprocess.run(
            [sys.executable, "-c", READER, store.name],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert out.stdout.strip() == "NRF-000007"
        assert "leaked" not in out.stderr


def test_a_writer_stopped_half_way_leaves_readers_the_last_whole_state(
    store: SharedMemoryHeartbeatStore,
) -> None:
    store.beat(200.0)
    before = store.snapshot()
    raw = SharedMemory(name=store.name)
    try:
        assert raw.buf is not None
        idle = (raw.buf[0] & 1) ^ 1
        start = heartbeat_layout._HEADER + idle * heartbeat_layout._SLOT
        raw.buf[start : start + 40] = b"\xff" * 40  # a write that never finished
        assert store.snapshot() == before
        store.beat(300.0)  # the next write overwrites the half-written slot
        assert store.snapshot().last_heartbeat == 300.0
    finally:
        raw.close()


def test_job_ids_longer_than_the_slot_are_refused(store: SharedMemoryHeartbeatStore) -> None:
    with pytest.raises(ValueError):
        store.start_job("x" * 129, 1.0, now=1.0)
    store.start_job("x" * 128, 1.0, now=1.0)
    assert store.snapshot().job_id == "x" * 128
