"""Worker start: which bundle it may open, what it tells /health and the log, and how it stops."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from fakes import FakeHeartbeatStore, FakeS3
from nrf.adapters.boundary_data.packaged import bundled_reference_data
from nrf.adapters.environment.settings import load_settings
from nrf.domain.health import WorkerStatus
from nrf.entrypoints.exit_codes import EXIT_FATAL, EXIT_SYNTHETIC_REFUSED
from nrf.entrypoints.reference_bundle import (
    SYNTHETIC_REFUSED,
    DownloadProgress,
    SyntheticDataRefused,
    bundled_synthetic,
    prepare_reference_data,
    verify_reference_data,
)
from support.bundle_copies import relabelled_bundle


def _no_s3() -> object:
    raise AssertionError("no S3 client is needed for a local bundle")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _bundle_info_row(path: Path) -> tuple[str, str]:
    with closing(sqlite3.connect(path)) as db:
        [(name, version)] = db.execute("SELECT name, version FROM bundle_info").fetchall()
    return name, version


def test_without_a_pin_the_bundled_synthetic_data_is_refused() -> None:
    store = FakeHeartbeatStore()
    with pytest.raises(SyntheticDataRefused) as caught:
        prepare_reference_data(load_settings({}), bundled_reference_data(), _no_s3, store)
    assert caught.value.code == SYNTHETIC_REFUSED
    assert "NRF_ALLOW_SYNTHETIC_DATA=true" in caught.value.message
    assert store.state.bundle_version == ""  # never announced


def test_with_the_opt_in_the_synthetic_bundle_is_used_and_announced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = FakeHeartbeatStore()
    settings = load_settings({"NRF_ALLOW_SYNTHETIC_DATA": "true"})
    with caplog.at_level(logging.INFO, logger="nrf.bundle"):
        ready = prepare_reference_data(settings, bundled_reference_data(), _no_s3, store)
    assert ready.path == bundled_reference_data()
    assert ready.info.synthetic
    # The name and version as stored in the bundled bundle's bundle_info row, read with sqlite3.
    name, version = _bundle_info_row(bundled_reference_data())
    assert store.state.bundle_version == ready.info.version == version
    assert store.state.status == WorkerStatus.STARTING  # alive, not yet running jobs
    [line] = [r for r in caplog.records if r.getMessage() == "reference_data_ready"]
    assert line.__dict__["bundle_sha256"] == _digest(bundled_reference_data())
    assert line.__dict__["bundle_name"] == name


def test_a_local_bundle_is_checked_against_its_pin(tmp_path: Path) -> None:
    bundle = relabelled_bundle(tmp_path / "real.gpkg", name="national", version="2026.2")
    env = {"NRF_REFERENCE_DATA": str(bundle), "NRF_REFERENCE_DATA_SHA256": _digest(bundle)}
    ready = prepare_reference_data(load_settings(env), bundled_reference_data(), _no_s3)
    assert (ready.info.name, ready.info.version, ready.info.synthetic) == (
        "national",
        "2026.2",
        False,
    )

    store = FakeHeartbeatStore()
    wrong = load_settings({**env, "NRF_REFERENCE_DATA_SHA256": "ab" * 32})
    assert verify_reference_data(wrong, store, lambda: False) == EXIT_FATAL
    assert store.state.status == WorkerStatus.ERROR


def test_an_s3_pin_is_downloaded_and_the_worker_gets_the_local_copy(tmp_path: Path) -> None:
    bundle = relabelled_bundle(tmp_path / "real.gpkg", name="national", version="2026.3")
    s3 = FakeS3({("bundles", "national/2026.3/national-2026.3.gpkg"): bundle.read_bytes()})
    env = {
        "NRF_REFERENCE_DATA": "s3://bundles/national/2026.3/national-2026.3.gpkg",
        "NRF_REFERENCE_DATA_SHA256": _digest(bundle),
        "NRF_REFERENCE_DATA_CACHE": str(tmp_path / "cache"),
    }
    ready = prepare_reference_data(load_settings(env), bundled_reference_data(), lambda: s3)
    assert ready.path.parent == tmp_path / "cache"
    assert ready.path.read_bytes() == bundle.read_bytes()
    assert ready.info.version == "2026.3"


def test_the_supervisor_falls_back_to_the_same_file_as_the_container() -> None:
    assert bundled_synthetic() == bundled_reference_data()


def test_settling_says_which_exit_code_stops_the_worker(tmp_path: Path) -> None:
    store = FakeHeartbeatStore()
    assert verify_reference_data(load_settings({}), store, lambda: False) == (
        EXIT_SYNTHETIC_REFUSED
    )
    assert store.state.status == WorkerStatus.ERROR
    allowed = load_settings({"NRF_ALLOW_SYNTHETIC_DATA": "true"})
    verified = verify_reference_data(allowed, FakeHeartbeatStore(), lambda: False)
    assert not isinstance(verified, int)
    assert verified.reference_data == str(bundled_reference_data())


class _Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_download_progress_beats_every_chunk_and_logs_every_tenth(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store, ticks = FakeHeartbeatStore(), _Ticks()
    progress = DownloadProgress(store, monotonic=ticks, wall=lambda: 1_000.0)
    with caplog.at_level(logging.INFO, logger="nrf.bundle"):
        for done in range(50, 1_001, 50):  # 20 chunks of 50 bytes, one second apart
            ticks.now += 1.0
            progress(done, 1_000)
    assert store.calls.count("beat") == 20
    lines = [r.__dict__ for r in caplog.records]
    # A line as each tenth is reached: 100, 200, ... 1,000 bytes.
    assert [line["bytes_done"] for line in lines] == list(range(100, 1_001, 100))
    # At 100 of 1,000 bytes after 2 s: 50 B/s, so the other 900 bytes take 18 s.
    assert (lines[0]["percent"], lines[0]["eta_seconds"]) == (10.0, 18)


def test_download_progress_logs_by_time_when_the_size_is_unknown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ticks = _Ticks()
    progress = DownloadProgress(None, monotonic=ticks)
    with caplog.at_level(logging.INFO, logger="nrf.bundle"):
        for done in range(1, 41):  # 40 chunks, 1 s apart: a line every 15 s
            ticks.now += 1.0
            progress(done, None)
    assert [r.__dict__["bytes_done"] for r in caplog.records] == [15, 30]


def test_a_cache_folder_that_cannot_be_made_stops_the_worker_as_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {
        "NRF_REFERENCE_DATA": "s3://bundles/n/1/n-1.gpkg",
        "NRF_REFERENCE_DATA_SHA256": "ab" * 32,
        "NRF_REFERENCE_DATA_CACHE": str(blocker / "cache"),  # a folder inside a file
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9",  # never reached: the folder fails first
    }
    store = FakeHeartbeatStore()
    assert verify_reference_data(load_settings(env), store, lambda: False) == EXIT_FATAL
    assert store.state.status == WorkerStatus.ERROR
