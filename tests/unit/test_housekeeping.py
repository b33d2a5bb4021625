"""Housekeeping: exactly what is past keeping goes, a dry run only tells, a rerun finds none."""

from __future__ import annotations

import json

from fakes import FakeClock
from nrf.domain.fleet import BundleStamp, WorkerBeat, WorkerState, beat_to_json
from nrf.service_layer.housekeeping import Housekeep
from ops_fakes import InMemoryOpsRecords, InMemoryStoreInventory

NOW = 1_700_000_000.0
DAY = 86_400.0


def beat(worker_id: str, written_at: float, state: WorkerState) -> bytes:
    return beat_to_json(
        WorkerBeat(
            worker_id=worker_id,
            state=state,
            jobs_in_flight=0,
            started_at=written_at - 60,
            written_at=written_at,
            nrf_version="0.1.0",
            bundle=BundleStamp("b", "1", "00" * 32),
            last_queue_contact=None,
        )
    )


def populated() -> tuple[InMemoryStoreInventory, InMemoryOpsRecords]:
    inventory, records = InMemoryStoreInventory(), InMemoryOpsRecords()
    # Retention 90 days: the cut-off is NOW − 90 × 86,400 s = NOW − 7,776,000 s.
    inventory.add_job("old", NOW - 7_776_001)  # one second past: goes
    inventory.add_job("edge", NOW - 7_775_999)  # one second inside: stays
    inventory.add_job("new", NOW - 60)
    inventory.add_job("half-old", NOW - 8_000_000, record=False)  # files, no record, old: goes
    # Claims: an orphan goes once its lease ended over 15 days ago (14 of SQS + 1):
    # 15 × 86,400 = 1,296,000 s.
    inventory.add_claim("gone-long-ago", NOW - 1_296_001)
    inventory.add_claim("gone-recently", NOW - 1_295_999)  # could still be received again
    inventory.add_claim("new", NOW - 1_300_000)  # its job is kept: the claim stays
    inventory.add_claim("old", NOW - 7_776_100)  # its job goes now: no job behind it any more
    inventory.temps = {"a/.result.json.x.tmp": NOW - 3_601, "b/.status.json.y.tmp": NOW - 10}
    records.put(".workers/dead.json", beat("dead", NOW - DAY - 1, WorkerState.RUNNING))
    records.put(".workers/crashed.json", beat("crashed", NOW - 600, WorkerState.RUNNING))
    records.put(".workers/stopped.json", beat("stopped", NOW - DAY - 1, WorkerState.STOPPED))
    records.put(".workers/alive.json", beat("alive", NOW - 5, WorkerState.RUNNING))
    records.put(".notices/x.delayed.json", json.dumps({"at": NOW - 7_776_001}).encode())
    records.put(".notices/y.delayed.json", json.dumps({"at": NOW - 60}).encode())
    return inventory, records


def test_exactly_what_is_past_keeping_is_deleted() -> None:
    inventory, records = populated()
    report = Housekeep(
        inventory=inventory, records=records, clock=FakeClock(NOW), retention_days=90
    )()
    assert sorted(inventory.job_files) == ["edge", "new"]
    assert sorted(inventory.leases) == ["gone-recently", "new"]
    assert list(inventory.temps) == ["b/.status.json.y.tmp"]
    assert records.keys(".workers") == [".workers/alive.json", ".workers/crashed.json"]
    assert records.keys(".notices") == [".notices/y.delayed.json"]
    # Jobs old + half-old; claims gone-long-ago + old; workers dead + stopped (silent over a
    # day); temps the one 3,601 s old (over 3,600); notices x (past the 90 days).
    assert report.counts == {
        "JobsDeleted": 2,
        "ClaimsDeleted": 2,
        "WorkerRecordsDeleted": 2,
        "TempFilesDeleted": 1,
        "NoticesDeleted": 1,
    }


def test_a_dry_run_deletes_nothing_and_reports_the_same_plan() -> None:
    inventory, records = populated()
    before = (dict(inventory.job_files), dict(inventory.leases), dict(records.data))
    report = Housekeep(
        inventory=inventory, records=records, clock=FakeClock(NOW), retention_days=90
    )(dry_run=True)
    assert (inventory.job_files, inventory.leases, records.data) == before
    assert inventory.deleted == []
    assert report.plan.jobs == ("half-old", "old")
    assert report.plan.claims == ("gone-long-ago", "old")


def test_a_second_run_finds_nothing_more_to_do() -> None:
    inventory, records = populated()
    Housekeep(inventory=inventory, records=records, clock=FakeClock(NOW), retention_days=90)()
    again = Housekeep(
        inventory=inventory, records=records, clock=FakeClock(NOW), retention_days=90
    )()
    assert set(again.counts.values()) == {0}


def test_the_use_case_passes_the_adapters_the_same_15_day_margin_at_delete_time() -> None:
    """The re-check itself is the adapters' (tests/integration/test_housekeeping_moto.py runs a
    revived claim against S3 and the disk); here: the use case asks with the right cut-off."""
    inventory, records = InMemoryStoreInventory(), InMemoryOpsRecords()
    inventory.add_claim("orphan", NOW - 2_000_000)
    asked: list[tuple[str, float]] = []

    class Recording(InMemoryStoreInventory):
        def delete_claim(self, job_id: str, expired_before: float) -> bool:
            asked.append((job_id, expired_before))
            return inventory.delete_claim(job_id, expired_before)

    recording = Recording()
    recording.leases, recording.job_files = inventory.leases, inventory.job_files
    Housekeep(inventory=recording, records=records, clock=FakeClock(NOW), retention_days=90)()
    # 14 days of SQS retention + 1 day = 15 x 86,400 = 1,296,000 s before now.
    assert asked == [("orphan", NOW - 1_296_000)]
