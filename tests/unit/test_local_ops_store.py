"""Local ops records and inventory: create-once, safe keys, leftovers found, live claims kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nrf.adapters.result_store.local_ops_records import LocalOpsRecords
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.adapters.result_store.local_store_inventory import LocalStoreInventory
from nrf.entrypoints.ops_metrics import emf_counts


def test_a_record_is_created_once(tmp_path: Path) -> None:
    records = LocalOpsRecords(tmp_path)
    assert records.put_new(".notices/a.json", b"1") is True
    assert records.put_new(".notices/a.json", b"2") is False
    assert records.get(".notices/a.json") == b"1"
    records.put(".notices/a.json", b"3")
    assert records.keys(".notices") == [".notices/a.json"]  # no temporary file left behind
    # A hidden file beside the job folders, never a folder of its own: folders are jobs.
    assert [p.name for p in tmp_path.iterdir()] == [".notices-a.json"]
    records.delete(".notices/a.json")
    records.delete(".notices/a.json")  # already gone: fine
    assert records.get(".notices/a.json") is None


@pytest.mark.parametrize("key", ["../etc/passwd", ".notices/../../x", "job-1/status.json", ""])
def test_keys_outside_the_hidden_folders_are_refused(tmp_path: Path, key: str) -> None:
    with pytest.raises(ValueError):
        LocalOpsRecords(tmp_path).put(key, b"x")


def test_leftover_temporary_files_are_found_by_age_and_only_they_go(tmp_path: Path) -> None:
    (tmp_path / "job-1").mkdir()
    old = tmp_path / "job-1" / ".result.json.abc.tmp"
    new = tmp_path / "job-1" / ".status.json.def.tmp"
    kept = tmp_path / "job-1" / "result.json"
    for path in (old, new, kept):
        path.write_bytes(b"x")
    os.utime(old, (1000.0, 1000.0))
    os.utime(new, (5000.0, 5000.0))
    inventory = LocalStoreInventory(tmp_path)
    assert inventory.temp_files(older_than=4000.0) == ["job-1/.result.json.abc.tmp"]
    inventory.delete_temp("job-1/.result.json.abc.tmp")
    assert not old.exists() and new.exists() and kept.exists()
    with pytest.raises(ValueError):
        inventory.delete_temp("job-1/result.json")  # not a temporary file


def test_a_claim_is_deleted_only_if_its_lease_is_still_over(tmp_path: Path) -> None:
    store, inventory = LocalResultStore(tmp_path), LocalStoreInventory(tmp_path)
    store.claim("job-1", "w", now=100.0, lease_seconds=50.0)  # lease ends at 150
    assert inventory.delete_claim("job-1", expired_before=150.0) is False  # 150 is not < 150
    assert inventory.delete_claim("job-1", expired_before=151.0) is True
    assert list(inventory.claims()) == []
    assert inventory.delete_claim("job-1", expired_before=151.0) is False  # gone already


def test_housekeeping_counts_are_one_emf_record() -> None:
    record = json.loads(emf_counts("nrf", {"JobsDeleted": 3, "LiveWorkers": 2}))
    metrics = record["_aws"]["CloudWatchMetrics"][0]
    assert metrics["Namespace"] == "nrf"
    assert [m["Name"] for m in metrics["Metrics"]] == ["JobsDeleted", "LiveWorkers"]
    assert (record["JobsDeleted"], record["LiveWorkers"], record["Service"]) == (3, 2, "nrf-worker")
