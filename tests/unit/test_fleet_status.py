"""`nrf status`: what it counts, and which findings need a person."""

from __future__ import annotations

from fakes import FakeClock, FakeResultStore
from nrf.domain.fleet import BundleStamp, WorkerBeat, WorkerState, beat_to_json, fleet_view
from nrf.domain.fleet_status import FleetStatus, StuckJob, concerns
from nrf.domain.jobs import JobRecord, JobStatus
from nrf.domain.ops_ports import QueueFigures
from nrf.domain.stall import STALL_KEY, StallState, stall_to_json
from nrf.service_layer.fleet_status import ReadFleetStatus
from ops_fakes import FakeQueueInspector, InMemoryOpsRecords, InMemoryStoreInventory

NOW = 1_700_000_000.0
BUNDLE = BundleStamp("synthetic-norfolk", "2026.1", "ab" * 32)


def beat(worker_id: str, written_at: float, bundle: BundleStamp = BUNDLE) -> WorkerBeat:
    return WorkerBeat(
        worker_id=worker_id,
        state=WorkerState.RUNNING,
        jobs_in_flight=0,
        started_at=NOW - 500,
        written_at=written_at,
        nrf_version="0.1.0",
        bundle=bundle,
        last_queue_contact=None,
    )


def status(queue: QueueFigures, beats: list[WorkerBeat], **rest: object) -> FleetStatus:
    fields: dict[str, object] = {
        "checked_at": NOW,
        "queue": queue,
        "oldest_age_seconds": None,
        "oldest_age_source": None,
        "fleet": fleet_view(beats, NOW),
        "finished_last_hour": 0,
        "failed_last_hour": 0,
        "stuck": (),
    }
    fields.update(rest)
    return FleetStatus(**fields)  # type: ignore[arg-type]


def codes(s: FleetStatus) -> list[str]:
    return [c.code for c in concerns(s)]


def test_all_well_means_no_concern() -> None:
    assert (
        codes(
            status(
                QueueFigures(visible=5, in_flight=1, delayed=0, dlq_visible=0), [beat("a", NOW - 1)]
            )
        )
        == []
    )
    assert (
        codes(status(QueueFigures(visible=0, in_flight=0, delayed=0, dlq_visible=0), [])) == []
    )  # nothing waiting, nobody needed


def test_each_finding_that_needs_a_person_is_its_own_concern() -> None:
    other = BundleStamp("national", "2026.2", "cd" * 32)
    mixed = [beat("a", NOW - 1), beat("b", NOW - 1, other)]
    assert codes(
        status(QueueFigures(visible=0, in_flight=0, delayed=0, dlq_visible=2), mixed[:1])
    ) == ["dlq_not_empty"]
    assert codes(
        status(
            QueueFigures(visible=3, in_flight=0, delayed=0, dlq_visible=0), [beat("a", NOW - 100)]
        )
    ) == ["no_live_worker"]
    assert codes(status(QueueFigures(visible=0, in_flight=0, delayed=0, dlq_visible=0), mixed)) == [
        "mixed_bundles"
    ]
    stuck = (StuckJob("job-1", NOW - 7200),)
    assert codes(
        status(QueueFigures(visible=0, in_flight=0, delayed=0, dlq_visible=0), [], stuck=stuck)
    ) == ["stuck_jobs"]
    every = status(
        QueueFigures(visible=1, in_flight=0, delayed=0, dlq_visible=1),
        [],
        stuck=stuck,
        undelivered=("job-2",),
    )
    assert codes(every) == [
        "dlq_not_empty",
        "no_live_worker",
        "stuck_jobs",
        "undelivered_callbacks",
    ]


def make_reader(
    inventory: InMemoryStoreInventory,
    store: FakeResultStore,
    records: InMemoryOpsRecords,
    queue: FakeQueueInspector | None = None,
) -> ReadFleetStatus:
    return ReadFleetStatus(
        queue=queue or FakeQueueInspector(),
        records=records,
        inventory=inventory,
        store=store,
        clock=FakeClock(NOW),
        stuck_after_seconds=3600,
    )


def test_recent_outcomes_and_stuck_claims_are_counted() -> None:
    inventory, store, records = InMemoryStoreInventory(), FakeResultStore(), InMemoryOpsRecords()
    for job_id, finished, outcome in [
        ("ok-recent", NOW - 600, JobStatus.SUCCEEDED),
        ("bad-recent", NOW - 3599, JobStatus.FAILED),
        ("ok-old", NOW - 3601, JobStatus.SUCCEEDED),  # just over an hour: not counted
    ]:
        inventory.add_job(job_id, finished)
        store.records[job_id] = JobRecord(job_id=job_id, status=outcome, finished_at=finished)
    # Lease ended 3601 s ago with no result: stuck. 3599 s ago: still within the grace.
    inventory.add_claim("lost", NOW - 3601)
    inventory.add_claim("retrying", NOW - 3599)
    inventory.add_claim("ok-old", NOW - 90_000)  # has a result: finished, not stuck
    records.put(".workers/a.json", beat_to_json(beat("a", NOW - 10)))
    records.put(".workers/torn.json", b"{")
    found = make_reader(inventory, store, records)()
    assert (found.finished_last_hour, found.failed_last_hour) == (1, 1)
    assert [s.job_id for s in found.stuck] == ["lost"]
    assert [b.worker_id for b in found.fleet.live] == ["a"]


def test_the_oldest_age_comes_from_cloudwatch_else_from_the_stall_watch() -> None:
    inventory, store, records = InMemoryStoreInventory(), FakeResultStore(), InMemoryOpsRecords()
    queue = FakeQueueInspector(
        QueueFigures(visible=4, in_flight=0, delayed=0, dlq_visible=0), age=None
    )
    assert make_reader(inventory, store, records, queue)().oldest_age_seconds is None
    records.put(STALL_KEY, stall_to_json(StallState(since=NOW - 420)))
    watched = make_reader(inventory, store, records, queue)()
    assert (watched.oldest_age_seconds, watched.oldest_age_source) == (420, "stall_watch")
    queue.age = 65.0
    seen = make_reader(inventory, store, records, queue)()
    assert (seen.oldest_age_seconds, seen.oldest_age_source) == (65.0, "cloudwatch")
