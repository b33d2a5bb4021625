"""Housekeeping against moto's S3 and a local directory: exact retention, safe twice at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from fakes import FakeClock
from nrf.adapters.result_store import local_store_inventory
from nrf.adapters.result_store.local_ops_records import LocalOpsRecords
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.adapters.result_store.local_store_inventory import LocalStoreInventory
from nrf.adapters.result_store.s3_ops_records import S3OpsRecords
from nrf.adapters.result_store.s3_result_store import S3ResultStore
from nrf.adapters.result_store.s3_store_inventory import S3StoreInventory
from nrf.domain.jobs import JobRecord, JobStatus, ResultStoreUnavailable
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
    assert len(reports) == 2  # both runs finished and reported
    assert sorted(j.job_id for j in inventory.jobs()) == ["new-1", "new-2"]
    assert store.record("old-1") is None and store.record("new-1") is not None
    # Each old job was deleted by one run or both; never more than the two of them. A run
    # that lists after the other has started deleting plans fewer (a flaky failure before).
    assert all(set(r.plan.jobs) <= {"old-1", "old-2"} for r in reports)
    assert {job for r in reports for job in r.plan.jobs} == {"old-1", "old-2"}
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


def test_a_job_whose_id_begins_another_takes_only_its_own_files(
    kind: str, moto_server: MotoServer, tmp_path: Path
) -> None:
    # "job-1" is a prefix of "job-10": a listing by "job-1" without the "/" would take both.
    aws = moto_server if kind == "s3" else None
    if aws is not None:
        aws.reset()
    store, inventory, _ = stores(kind, aws, tmp_path / "results")
    for job_id in ("job-1", "job-10"):
        save_job(store, job_id)
    # result.json, result.csv and status.json: three files, all job-1's own.
    assert inventory.delete_job("job-1") == 3
    assert store.record("job-1") is None
    assert store.record("job-10") is not None
    assert [j.job_id for j in inventory.jobs()] == ["job-10"]


def test_a_claim_taken_again_between_plan_and_delete_survives(
    kind: str, moto_server: MotoServer, tmp_path: Path
) -> None:
    """The adapter's own re-check at delete time, not the plan, keeps a revived claim."""
    aws = moto_server if kind == "s3" else None
    if aws is not None:
        aws.reset()
    store, inventory, records = stores(kind, aws, tmp_path / "results")
    now = time.time()
    # Claimed 20 days ago for 600 s, with no job behind it: the plan sees an orphan (its lease
    # ended 20 days - 600 s ago, over the 15 days of 1,296,000 s).
    store.claim("revived", "w-old", now - 20 * DAY, 600)

    class Racing:
        """The real inventory; a worker takes the claim again just before the delete."""

        def __getattr__(self, name: str) -> Any:
            return getattr(inventory, name)

        def delete_claim(self, job_id: str, expired_before: float) -> bool:
            store.claim(job_id, "w-new", now, 600)  # lease until now + 600 s
            return bool(inventory.delete_claim(job_id, expired_before))

    report = Housekeep(
        inventory=Racing(), records=records, clock=FakeClock(now), retention_days=90
    )()
    assert report.plan.claims == ("revived",)
    assert report.counts["ClaimsDeleted"] == 0
    assert [(c.lease.job_id, c.lease.owner) for c in inventory.claims()] == [("revived", "w-new")]


class FailsOnSecondDelete:
    """An S3 client whose second DeleteObject fails, as a dropped connection would."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.deleted: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def delete_object(self, **kwargs: Any) -> Any:
        if len(self.deleted) == 1:
            raise ClientError({"Error": {"Code": "InternalError"}}, "DeleteObject")
        self.deleted.append(kwargs["Key"])
        return self._client.delete_object(**kwargs)


def test_a_delete_cut_off_part_way_on_s3_leaves_no_record_of_missing_files(
    aws: MotoServer, tmp_path: Path
) -> None:
    store, _, _ = stores("s3", aws, tmp_path)
    save_job(store, "job-1")
    failing = FailsOnSecondDelete(aws.client("s3"))
    inventory = S3StoreInventory(failing, BUCKET, "results")
    with pytest.raises(ResultStoreUnavailable):
        inventory.delete_job("job-1")
    # One object went before the failure: it must have been the record, so what is left
    # reads as an unfinished job, never as a finished one whose files are missing.
    assert failing.deleted == ["results/job-1/status.json"]
    assert store.record("job-1") is None
    assert [(j.job_id, j.record_modified) for j in inventory.jobs()] == [("job-1", None)]
    # The next run finishes it: two files left (result.json, result.csv).
    assert S3StoreInventory(aws.client("s3"), BUCKET, "results").delete_job("job-1") == 2


def test_a_delete_cut_off_part_way_on_disk_leaves_no_record_of_missing_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, inventory, _ = stores("local", None, tmp_path / "results")
    save_job(store, "job-1")

    def rmtree_failing_part_way(path: Any, *args: Any, **kwargs: Any) -> None:
        (Path(path) / "result.csv").unlink()  # one file goes, then the disk fails
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(local_store_inventory.shutil, "rmtree", rmtree_failing_part_way)
    with pytest.raises(OSError):
        inventory.delete_job("job-1")
    assert store.record("job-1") is None
    assert [(j.job_id, j.record_modified) for j in inventory.jobs()] == [("job-1", None)]


def test_only_multipart_uploads_older_than_an_hour_are_aborted(aws: MotoServer) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": "eu-west-2"})
    inventory = S3StoreInventory(s3, BUCKET, "results")
    records = S3OpsRecords(s3, BUCKET, "results")
    upload = s3.create_multipart_upload(Bucket=BUCKET, Key="results/job-1/result.json")
    listed = s3.list_multipart_uploads(Bucket=BUCKET)["Uploads"]
    started = listed[0]["Initiated"].timestamp()

    def uploads() -> list[str]:
        return [u["UploadId"] for u in s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", [])]

    # The threshold is 3,600 s: at started + 3,599 s the upload may still be in progress.
    young = Housekeep(
        inventory=inventory, records=records, clock=FakeClock(started + 3_599), retention_days=90
    )()
    assert young.counts["TempFilesDeleted"] == 0
    assert uploads() == [upload["UploadId"]]
    # At started + 3,601 s it is abandoned: aborted.
    old = Housekeep(
        inventory=inventory, records=records, clock=FakeClock(started + 3_601), retention_days=90
    )()
    assert old.counts["TempFilesDeleted"] == 1
    assert uploads() == []


def test_a_claim_taken_between_the_s3_re_check_and_its_delete_survives(aws: MotoServer) -> None:
    """The re-check reads the claim, then deletes only what it read (If-Match on its ETag)."""
    store, _, _ = stores("s3", aws, Path("unused"))
    now = time.time()
    store.claim("revived", "w-old", now - 20 * DAY, 600)  # ended 20 days ago: an orphan
    s3 = aws.client("s3")

    class TakenAfterTheRead:
        """S3 as the inventory sees it: a worker takes the claim just after it is read."""

        def __getattr__(self, name: str) -> Any:
            return getattr(s3, name)

        def get_object(self, **kwargs: Any) -> Any:
            answer = s3.get_object(**kwargs)
            store.claim("revived", "w-new", now, 600)  # lease until now + 600 s
            return answer

    inventory = S3StoreInventory(TakenAfterTheRead(), BUCKET, "results")
    # It read the old lease (over 15 days ended), yet the delete must not land.
    assert inventory.delete_claim("revived", now - 15 * DAY) is False
    after = S3StoreInventory(s3, BUCKET, "results")
    assert [(c.lease.job_id, c.lease.owner) for c in after.claims()] == [("revived", "w-new")]
    # With nothing taken in between, the same call deletes it.
    store.claim("orphan", "w-old", now - 20 * DAY, 600)
    assert after.delete_claim("orphan", now - 15 * DAY) is True
    assert [c.lease.job_id for c in after.claims()] == ["revived"]


def pending_upload(moto_server: MotoServer, tmp_path: Path) -> tuple[Any, S3StoreInventory]:
    """A multipart upload started and never finished, as a killed writer leaves one."""
    moto_server.reset()
    _, inventory, records = stores("s3", moto_server, tmp_path)
    s3 = moto_server.client("s3")
    upload = s3.create_multipart_upload(Bucket=BUCKET, Key="results/job-1/result.json")
    s3.upload_part(
        Bucket=BUCKET,
        Key="results/job-1/result.json",
        UploadId=upload["UploadId"],
        PartNumber=1,
        Body=b"{",
    )
    return records, inventory


def test_an_abandoned_upload_aborted_twice_is_gone_not_an_error(
    moto_server: MotoServer, tmp_path: Path
) -> None:
    _, inventory = pending_upload(moto_server, tmp_path)
    [name] = inventory.temp_files(time.time() + DAY)
    inventory.delete_temp(name)
    inventory.delete_temp(name)  # a second run aborting the same upload: already gone
    assert inventory.temp_files(time.time() + DAY) == []


def test_two_runs_that_both_planned_an_abandoned_upload_both_finish(
    moto_server: MotoServer, tmp_path: Path
) -> None:
    records, inventory = pending_upload(moto_server, tmp_path)
    now = time.time() + DAY  # the upload is a day old: past the temporaries' age
    listed = inventory.temp_files(now)
    assert len(listed) == 1

    class PlannedBefore:
        """The real inventory, listing uploads as it did before the other run aborted."""

        def __getattr__(self, name: str) -> Any:
            return getattr(inventory, name)

        def temp_files(self, older_than: float) -> list[str]:
            return listed

    first = Housekeep(inventory=inventory, records=records, clock=FakeClock(now), retention_days=90)
    second = Housekeep(
        inventory=PlannedBefore(), records=records, clock=FakeClock(now), retention_days=90
    )
    assert first().plan.temp_files == tuple(listed)
    assert second().plan.temp_files == tuple(listed)  # its abort finds the upload gone
    assert inventory.temp_files(now) == []
