"""The worker's fleet heartbeat takes its root's clock and heartbeat provider."""

from __future__ import annotations

import json

from dependency_injector import providers

from fakes import FakeClock, FakeHeartbeatStore
from nrf.adapters.environment.settings import load_settings
from nrf.domain.fleet import BundleStamp
from nrf.entrypoints.roots.worker import build_worker_root
from nrf.entrypoints.worker.fleet_beats import start_fleet_heartbeat
from ops_fakes import InMemoryOpsRecords

T0 = 1_800_000_000.0


def test_the_record_is_stamped_by_the_injected_clock_not_the_system_one() -> None:
    settings = load_settings({"NRF_WORKER_ID": "w-1", "NRF_FLEET_HEARTBEAT_SECONDS": "3600"})
    container = build_worker_root(settings)
    records, clock = InMemoryOpsRecords(), FakeClock(T0)
    container.ops_records.override(providers.Object(records))
    container.clock.override(providers.Object(clock))
    shared = FakeHeartbeatStore()  # no task start known: the clock's now stands in
    beats = start_fleet_heartbeat(
        settings,
        container.fleet_heartbeat,
        BundleStamp("national", "2026.2", "c" * 64),
        shared,
        lambda: 0,
        container.clock(),
    )
    beats.stop(clean=False)  # joins the thread, then one last beat
    [key] = [k for k in records.data if "w-1" in k]
    record = json.loads(records.data[key])
    # A fake clock at T0 = 1,800,000,000 s (2027): the system clock would say 2026.
    assert record["started_at"] == T0 and record["written_at"] == T0
