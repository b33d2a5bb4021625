"""Housekeeping against moto's S3 and a local directory: exact retention, safe twice at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from fakes import FakeClock
from nrf.adapters.result_store.local_ops_records import LocalOpsRecords
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.adapters.result_store.local_store_inventory import LocalStoreInventory
from nrf.adapters.result_store.s3_ops_records import S3OpsRecords
from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.adapters.result_store.s3_store_inventory import S3StoreInventory
from nrf.domain.jobs import JobRecord, JobStatus
from nrf.service_layer.housekeeping import Housekeep
from support.moto_server import MotoServer

BUCKET = "nrf-housekeeping"
DAY = 86_400.0


def save_job(store: Any, job_id: str) -> None:
    record = JobRecord(job_id=job_id, status=JobStatus.SUCCEEDED, finished_at=time.time())
    store.save(job_id, {"result.json": b"{}", "result.csv": b"a,b\n"}, record)


def stores(kind: str, aws: MotoServer | None, root: Path) -> tuple[Any, Any, Any]:
    if kind == "s3":
        assert aws is not None
        s3 = aws.client("s3")
        s3.create_bucket(
            Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"}
        )
        return (
            S3ResultStore(s3, BUCKET, "results"),
            S3StoreInventory(s3, BUCKET, "results"),
            S3OpsRecords(s3, BUCKET, "results"),
        )
    return LocalResultStore(root), LocalStoreInventory(root), LocalOpsRecords(root)


@pytest.fixture(params=["s3", "local"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_retention_deletes_exactly_what_is_past_it_even_run_twice_at_once(
    kind: str, moto_server: MotoServer, tmp_path: Path
) -> None:
    aws = moto_server if kind == "s3" else None
    if aws is not None:
        aws.reset()
    store, inventory, records = stores(kind, aws, tmp_path / "results")
    for job_id in ("old-1", "old-2"):
        save_job(store, job_id)
    time.sleep(1.1)  # the stores keep times to the second or better: two distinct generations
    for job_id in ("new-1", "new-2"):
        save_job(store, job_id)
    # Each job's claim, as the worker leaves it after finishing (released).
    for job_id in ("old-1", "old-2", "new-1", "new-2"):
        store.claim(job_id, "w", time.time(), 600)
        store.release(job_id, "w", time.time())
    listed = {j.job_id: j.record_modified for j in inventory.jobs()}
    old_written = max(listed["old-1"], listed["old-2"])
    new_written = min(listed["new-1"], listed["new-2"])
    assert old_written < new_written
    # "Now" is 90 days after a moment between the two generations: the old ones are past
    # the retention by about half a second, the new ones inside it by about as much.
    now = (old_written + new_written) / 2 + 90 * DAY

    reports: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            reports.append(
                Housekeep(
                    inventory=inventory, records=records, clock=FakeClock(now), retention_days=90
                )()
            )
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert sorted(j.job_id for j in inventory.jobs()) == ["new-1", "new-2"]
    assert store.record("old-1") is None and store.record("new-1") is not None
    # Each old job was deleted by one run or both; never more than the two of them.
    assert all(r.plan.jobs == ("old-1", "old-2") for r in reports)
    # The old jobs' claims went with them (no job behind them, lease over for 90 days); the
    # new jobs' claims ended as long ago but their jobs are kept, so they stay.
    assert sorted(c.lease.job_id for c in inventory.claims()) == ["new-1", "new-2"]
    again = Housekeep(
        inventory=inventory, records=records, clock=FakeClock(now), retention_days=90
    )()
    assert set(again.counts.values()) == {0}


def test_a_dry_run_on_s3_deletes_nothing(moto_server: MotoServer, tmp_path: Path) -> None:
    moto_server.reset()
    store, inventory, records = stores("s3", moto_server, tmp_path)
    save_job(store, "kept")
    report = Housekeep(
        inventory=inventory,
        records=records,
        clock=FakeClock(time.time() + 400 * DAY),
        retention_days=90,
    )(dry_run=True)
    assert report.plan.jobs == ("kept",)
    assert store.record("kept") is not None
