"""LocalResultStore: files before the record, atomic replacement, job ids kept inside root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.domain.errors import InvalidInput
from nrf.domain.jobs import JobRecord, JobStatus, ResultStoreUnavailable

RECORD = JobRecord(job_id="NRF-000001", status=JobStatus.SUCCEEDED, finished_at=1_700_000_000.0)
FILES = {"result.json": b'{"ok": true}', "legacy.csv": b"a,b\n1,2\n"}


class RecordingReplace:
    """os.replace that records each destination and can fail on one of them."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.targets: list[str] = []
        self.fail_on = fail_on

    def __call__(self, source: str, target: str | os.PathLike[str]) -> None:
        name = Path(target).name
        if name == self.fail_on:
            raise OSError(28, "No space left on device")
        self.targets.append(name)
        os.replace(source, target)


def test_save_then_record_round_trips(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    where = store.save("NRF-000001", FILES, RECORD)
    assert where == str(tmp_path / "NRF-000001")
    assert (tmp_path / "NRF-000001" / "legacy.csv").read_bytes() == b"a,b\n1,2\n"
    assert store.record("NRF-000001") == RECORD
    assert sorted(p.name for p in (tmp_path / "NRF-000001").iterdir()) == [
        "legacy.csv",
        "result.json",
        "status.json",
    ]


def test_an_unknown_job_has_no_record(tmp_path: Path) -> None:
    assert LocalResultStore(tmp_path).record("NRF-999999") is None


def test_the_record_is_written_last(tmp_path: Path) -> None:
    replace = RecordingReplace()
    LocalResultStore(tmp_path, replace=replace).save("NRF-000001", FILES, RECORD)
    assert replace.targets == ["result.json", "legacy.csv", "status.json"]


def test_a_failure_part_way_leaves_no_record_and_no_temporary_files(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path, replace=RecordingReplace(fail_on="legacy.csv"))
    with pytest.raises(ResultStoreUnavailable):
        store.save("NRF-000001", FILES, RECORD)
    assert store.record("NRF-000001") is None
    assert sorted(p.name for p in (tmp_path / "NRF-000001").iterdir()) == ["result.json"]


def test_a_failed_rewrite_keeps_the_old_file_whole(tmp_path: Path) -> None:
    LocalResultStore(tmp_path).save("NRF-000001", FILES, RECORD)
    failing = LocalResultStore(tmp_path, replace=RecordingReplace(fail_on="result.json"))
    with pytest.raises(ResultStoreUnavailable):
        failing.save("NRF-000001", {"result.json": b"new and longer content"}, RECORD)
    assert (tmp_path / "NRF-000001" / "result.json").read_bytes() == b'{"ok": true}'


@pytest.mark.parametrize("job_id", ["../escape", "..", ".hidden", "a/b", "", "/etc"])
def test_job_ids_cannot_escape_the_root(tmp_path: Path, job_id: str) -> None:
    root = tmp_path / "root"
    store = LocalResultStore(root)
    with pytest.raises(InvalidInput):
        store.save(job_id, FILES, RECORD)
    with pytest.raises(InvalidInput):
        store.record(job_id)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["../x.csv", ".hidden", "sub/x.csv"])
def test_file_names_cannot_escape_the_job_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(InvalidInput):
        LocalResultStore(tmp_path).save("NRF-000001", {name: b"x"}, RECORD)


def test_status_json_is_reserved_and_records_must_match_the_job(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    with pytest.raises(ValueError, match="reserved"):
        store.save("NRF-000001", {"status.json": b"{}"}, RECORD)
    with pytest.raises(ValueError, match="another job"):
        store.save("NRF-000002", FILES, RECORD)


def test_a_corrupt_record_is_reported_not_ignored(tmp_path: Path) -> None:
    (tmp_path / "NRF-000001").mkdir()
    (tmp_path / "NRF-000001" / "status.json").write_text("{half")
    with pytest.raises(ResultStoreUnavailable):
        LocalResultStore(tmp_path).record("NRF-000001")


def test_sweep_deletes_only_stale_temporaries_left_by_killed_writers(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    store.save("NRF-000001", FILES, RECORD)
    folder = tmp_path / "NRF-000001"
    stale, fresh = folder / ".result.json.x1.tmp", folder / ".status.json.x2.tmp"
    for temp in (stale, fresh):
        temp.write_bytes(b"{")
    os.utime(stale, (1_000.0, 1_000.0))
    os.utime(fresh, (4_000.0, 4_000.0))

    # At 4 600 s with a 3 600 s limit: stale is 3 600 s old (swept), fresh 600 s (kept).
    assert store.sweep_temporaries(now=4_600.0, older_than=3_600.0) == 1
    assert not stale.exists() and fresh.exists()
    assert store.record("NRF-000001") == RECORD, "finished files are never touched"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [".status.json.x2.tmp", "legacy.csv", "result.json", "status.json"]
    )


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_result_files_get_the_users_normal_permissions(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        LocalResultStore(tmp_path).save("NRF-000001", FILES, RECORD)
    finally:
        os.umask(previous)
    folder = tmp_path / "NRF-000001"
    modes = {p.name: p.stat().st_mode & 0o777 for p in folder.iterdir()}
    # 0o666 & ~0o022 = 0o644: colleagues and the web server can read results (not 0o600).
    assert modes == {"result.json": 0o644, "legacy.csv": 0o644, "status.json": 0o644}
