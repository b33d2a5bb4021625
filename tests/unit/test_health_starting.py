"""While the bundle is fetched the task is alive but not ready; /ready names the bundle version."""

from __future__ import annotations

import falcon.testing

from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore
from nrf.domain.health import (
    HeartbeatSnapshot,
    WorkerStatus,
    evaluate_health,
    evaluate_readiness,
)
from nrf.entrypoints.health_app import StoreProbe, create_app


def test_starting_with_a_fresh_beat_is_healthy_but_not_ready() -> None:
    snapshot = HeartbeatSnapshot(status=WorkerStatus.STARTING, last_heartbeat=1_000.0)
    health = evaluate_health(snapshot, now=1_010.0, heartbeat_timeout=180.0)
    assert (health.healthy, health.reason) == (True, "starting")
    ready = evaluate_readiness(snapshot)
    assert (ready.ready, ready.reason) == (False, "starting")


def test_a_download_that_stalls_goes_unhealthy() -> None:
    # No bytes (so no beat) for 180 s: ECS should replace the task.
    snapshot = HeartbeatSnapshot(status=WorkerStatus.STARTING, last_heartbeat=1_000.0)
    health = evaluate_health(snapshot, now=1_180.0, heartbeat_timeout=180.0)
    assert (health.healthy, health.reason) == (False, "heartbeat_stale")


def test_readiness_carries_the_bundle_version() -> None:
    snapshot = HeartbeatSnapshot(
        status=WorkerStatus.RUNNING,
        bundle_loaded=True,
        queue_reachable=True,
        bundle_version="2026.07",
    )
    assert evaluate_readiness(snapshot).bundle_version == "2026.07"


def test_the_version_travels_through_shared_memory_to_ready() -> None:
    with SharedMemoryHeartbeatStore.create(now=100.0) as store:
        store.set_status(WorkerStatus.STARTING)
        store.set_bundle_version("2026.07-national")
        client = falcon.testing.TestClient(create_app(StoreProbe(store, clock=lambda: 100.0)))
        starting = client.simulate_get("/ready")
        assert starting.status_code == 503
        assert starting.json == {
            "status": "not_ready",
            "reason": "starting",
            "bundle_version": "2026.07-national",
        }
        store.set_status(WorkerStatus.RUNNING)
        store.beat(100.0)
        store.set_ready(bundle_loaded=True, queue_reachable=True)
        ready = client.simulate_get("/ready")
        assert (ready.status_code, ready.json["bundle_version"]) == (200, "2026.07-national")
        assert client.simulate_get("/health").json["reason"] == "ok"


def test_a_long_version_is_cut_to_the_field_on_a_character_boundary() -> None:
    with SharedMemoryHeartbeatStore.create(now=100.0) as store:
        store.set_bundle_version("v" * 63 + "é")  # 63 + 2 bytes: the é does not fit in 64
        assert store.snapshot().bundle_version == "v" * 63
