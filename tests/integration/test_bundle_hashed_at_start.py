"""The worker hashes its bundle once, in the start-up step, while /ready still says no.

A bundle without a usable digest sidecar (an old one, one built elsewhere, a read-only
folder) used to be hashed again by the worker process and by every job process (and by a job
process replacing one that died, under its first job). Now the step that verifies the bundle
hands its digest on, stamped with the file's size and mtime.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path

import falcon.testing
import pytest

from nrf.adapters.boundary_data import bundle_digest
from nrf.adapters.boundary_data.packaged import bundled_reference_data, bundled_samples
from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import validate_features
from nrf.entrypoints.health_app import StoreProbe, create_app
from nrf.entrypoints.reference_bundle import verify_reference_data
from nrf.entrypoints.roots.core import Core, build

SMALL = bundled_samples() / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"


def recorded_hashes(
    monkeypatch: pytest.MonkeyPatch, on_hash: Callable[[], None] = lambda: None
) -> list[Path]:
    """Every whole-file hash of a bundle from now on (a recording wrapper of the real one)."""
    calls: list[Path] = []
    real = bundle_digest.sha256_of

    def recording(path: Path) -> str:
        calls.append(path)
        on_hash()
        return real(path)

    monkeypatch.setattr(bundle_digest, "sha256_of", recording)
    return calls


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A copy with no sidecar: the synthetic bundle is under 64 MiB, so it never gets one and
    every open hashes it, like a national bundle in a read-only folder."""
    copy = tmp_path / "bundle.gpkg"
    shutil.copyfile(bundled_reference_data(), copy)
    return copy


def first_job(settings: WorkerSettings) -> str:
    """What a job process does: its own container, the digest read at start, then a job."""
    container = build(Core, settings=settings)
    container.boundary_data().info()
    developments = validate_features(read_boundary_file(SMALL))
    rules = rule_set_named("iat-2026-04")
    run = container.assess_developments()(developments, rules, date(2026, 11, 26))
    return run.provenance.bundle_sha256


def test_only_the_start_up_step_hashes_the_bundle(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = recorded_hashes(monkeypatch)
    settings = WorkerSettings(reference_data=str(bundle), allow_synthetic_data=True)
    verified = verify_reference_data(settings, None, lambda: False)
    assert isinstance(verified, WorkerSettings)
    assert calls == [bundle]
    # the worker process and two job processes, each with its own container
    digests = {first_job(verified) for _ in range(3)}
    assert calls == [bundle]  # none of them hashed again
    assert digests == {hashlib.sha256(bundle.read_bytes()).hexdigest()}


def test_a_bundle_changed_since_the_start_up_step_is_hashed_again(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = recorded_hashes(monkeypatch)
    settings = WorkerSettings(reference_data=str(bundle), allow_synthetic_data=True)
    verified = verify_reference_data(settings, None, lambda: False)
    assert isinstance(verified, WorkerSettings)
    stat = bundle.stat()
    os.utime(bundle, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    first_job(verified)
    assert calls == [bundle, bundle]


def test_ready_is_not_ready_while_the_bundle_is_hashed(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SharedMemoryHeartbeatStore.create(now=100.0) as store:
        client = falcon.testing.TestClient(create_app(StoreProbe(store, clock=lambda: 100.0)))
        seen: list[tuple[int, str]] = []

        def ask_ready() -> None:
            answer = client.simulate_get("/ready")
            seen.append((answer.status_code, answer.json["reason"]))

        recorded_hashes(monkeypatch, ask_ready)
        settings = WorkerSettings(reference_data=str(bundle), allow_synthetic_data=True)
        assert isinstance(verify_reference_data(settings, store, lambda: False), WorkerSettings)
        assert seen == [(503, "starting")]
        # ready only once the worker process's loop has reached the queue, after this step
        assert client.simulate_get("/ready").status_code == 503
