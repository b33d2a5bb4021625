"""Fleet heartbeats: liveness at the 3-interval edge, the fleet view, and the writer."""

from __future__ import annotations

import json

import pytest

from fakes import FakeClock
from nrf.domain.fleet import (
    BundleStamp,
    WorkerBeat,
    WorkerState,
    beat_from_json,
    beat_to_json,
    fleet_view,
)
from nrf.service_layer.fleet_heartbeat import FleetHeartbeat, WorkerActivity, WorkerIdentity
from ops_fakes import InMemoryOpsRecords

BUNDLE = BundleStamp("synthetic-norfolk", "2026.1", "ab" * 32)


def beat(worker_id: str = "w1", written_at: float = 1000.0, **changes: object) -> WorkerBeat:
    fields: dict[str, object] = {
        "worker_id": worker_id,
        "state": WorkerState.RUNNING,
        "jobs_in_flight": 0,
        "started_at": 900.0,
        "written_at": written_at,
        "nrf_version": "0.1.0",
        "bundle": BUNDLE,
        "last_queue_contact": None,
        "interval_seconds": 30.0,
    }
    fields.update(changes)
    return WorkerBeat(**fields)  # type: ignore[arg-type]


def test_a_worker_is_live_until_three_of_its_intervals_have_passed() -> None:
    # Written at 1000 with a 30 s interval: live while younger than 3 × 30 = 90 s.
    assert beat().is_live(1089.9)
    assert not beat().is_live(1090.0)
    # Its own interval counts, not a global one: 3 × 0.5 s = 1.5 s.
    assert beat(interval_seconds=0.5).is_live(1001.4)
    assert not beat(interval_seconds=0.5).is_live(1001.5)


def test_a_stopped_worker_is_never_live_however_fresh() -> None:
    assert not beat(state=WorkerState.STOPPED).is_live(1000.0)


def test_the_fleet_view_sorts_workers_and_spots_mixed_bundles() -> None:
    other = BundleStamp("national", "2026.2", "cd" * 32)
    beats = [
        beat("b", 1000.0),
        beat("a", 1000.0, bundle=other),
        beat("c", 900.0),  # 100 s old at 1000: past 90 s, stale
        beat("d", 999.0, state=WorkerState.STOPPED),
    ]
    view = fleet_view(beats, now=1000.0)
    assert [b.worker_id for b in view.live] == ["a", "b"]
    assert [b.worker_id for b in view.stale] == ["c"]
    assert [b.worker_id for b in view.stopped] == ["d"]
    assert set(view.bundles) == {BUNDLE, other}


# The record as docs/deploy.md lists its fields, written out by hand.
HAND_WRITTEN = {
    "worker_id": "w1",
    "status": "running",
    "jobs_in_flight": 2,
    "started_at": 900.0,
    "written_at": 1000.0,
    "nrf_version": "0.1.0",
    "bundle": {"name": "synthetic-norfolk", "version": "2026.1", "sha256": "ab" * 32},
    "last_queue_contact": 990.5,
    "interval_seconds": 30.0,
}


def test_a_beat_is_written_as_the_documented_record() -> None:
    written = beat_to_json(beat(last_queue_contact=990.5, jobs_in_flight=2))
    assert json.loads(written) == HAND_WRITTEN


def test_the_documented_record_is_read_and_rubbish_is_refused() -> None:
    assert beat_from_json(json.dumps(HAND_WRITTEN).encode()) == beat(
        last_queue_contact=990.5, jobs_in_flight=2
    )
    never_polled = {**HAND_WRITTEN, "last_queue_contact": None, "status": "stopped"}
    read = beat_from_json(json.dumps(never_polled).encode())
    assert (read.last_queue_contact, read.state) == (None, WorkerState.STOPPED)
    with pytest.raises(ValueError):
        beat_from_json(b'{"worker_id": "w1"}')
    with pytest.raises(ValueError):
        beat_from_json(json.dumps({**HAND_WRITTEN, "status": "asleep"}).encode())


def test_the_writer_records_activity_and_marks_a_clean_stop() -> None:
    records, clock = InMemoryOpsRecords(), FakeClock(5000.0)
    activity = WorkerActivity(WorkerState.RUNNING, 1, 4990.0)
    identity = WorkerIdentity(
        worker_id="host-7", started_at=4000.0, bundle=BUNDLE, interval_seconds=30.0
    )
    heartbeat = FleetHeartbeat(
        records=records, clock=clock, identity=identity, activity=lambda: activity
    )
    heartbeat.beat()
    written = json.loads(records.data[".workers/host-7.json"])
    assert {k: v for k, v in written.items() if k != "nrf_version"} == {
        "worker_id": "host-7",
        "status": "running",
        "jobs_in_flight": 1,
        "started_at": 4000.0,
        "written_at": 5000.0,  # the clock's now
        "bundle": {"name": "synthetic-norfolk", "version": "2026.1", "sha256": "ab" * 32},
        "last_queue_contact": 4990.0,
        "interval_seconds": 30.0,
    }
    clock.advance(12.0)
    heartbeat.stopped()
    final = beat_from_json(records.data[".workers/host-7.json"])
    assert (final.state, final.jobs_in_flight, final.written_at) == (WorkerState.STOPPED, 0, 5012.0)
    assert not final.is_live(5012.0)


def test_a_failed_write_is_swallowed_so_jobs_go_on() -> None:
    records = InMemoryOpsRecords()
    records.down = True
    identity = WorkerIdentity(
        worker_id="host-7", started_at=4000.0, bundle=BUNDLE, interval_seconds=30.0
    )
    activity = WorkerActivity(WorkerState.RUNNING, 0, None)
    heartbeat = FleetHeartbeat(
        records=records, clock=FakeClock(), identity=identity, activity=lambda: activity
    )
    assert heartbeat.beat() is None  # None is the writer's "not written", instead of raising
    assert records.data == {}
    records.down = False  # the store is back: the next beat writes as usual
    assert heartbeat.beat() is not None and ".workers/host-7.json" in records.data
