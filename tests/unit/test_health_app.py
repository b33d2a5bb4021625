"""The Falcon health app through falcon.testing, with a fake probe and a fake store."""

from __future__ import annotations

import falcon.testing
import pytest

from fakes import FakeClock, FakeHeartbeatStore
from nrf.domain.health import HealthVerdict, ReadinessVerdict, WorkerStatus
from nrf.entrypoints.health_app import StoreProbe, create_app, gunicorn_command


class FixedProbe:
    def __init__(self, health: HealthVerdict, readiness: ReadinessVerdict) -> None:
        self._health, self._readiness = health, readiness

    def health(self) -> HealthVerdict:
        return self._health

    def readiness(self) -> ReadinessVerdict:
        return self._readiness


class BrokenProbe:
    def health(self) -> HealthVerdict:
        raise TimeoutError("secret-host.internal:5432 exploded")

    def readiness(self) -> ReadinessVerdict:
        raise TimeoutError("secret-host.internal:5432 exploded")


def client(probe: object) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(create_app(probe))  # type: ignore[arg-type]


def test_healthy_is_200_with_a_small_body() -> None:
    probe = FixedProbe(
        HealthVerdict(healthy=True, reason="ok", heartbeat_age=12.34567, job_in_progress=True),
        ReadinessVerdict(True, "ready"),
    )
    result = client(probe).simulate_get("/health")
    assert result.status_code == 200
    assert result.json == {
        "status": "ok",
        "reason": "ok",
        "heartbeat_age_seconds": 12.346,  # 12.34567 to the millisecond
        "job_in_progress": True,
    }


def test_unhealthy_is_503() -> None:
    probe = FixedProbe(
        HealthVerdict(
            healthy=False, reason="heartbeat_stale", heartbeat_age=200.0, job_in_progress=False
        ),
        ReadinessVerdict(False, "draining"),
    )
    result = client(probe).simulate_get("/health")
    assert result.status_code == 503
    assert result.json["status"] == "unavailable"
    ready = client(probe).simulate_get("/ready")
    assert (ready.status_code, ready.json) == (503, {"status": "not_ready", "reason": "draining"})


def test_ready_is_200() -> None:
    probe = FixedProbe(
        HealthVerdict(healthy=True, reason="ok", heartbeat_age=0.0, job_in_progress=False),
        ReadinessVerdict(True, "ready"),
    )
    result = client(probe).simulate_get("/ready")
    assert (result.status_code, result.json) == (200, {"status": "ready", "reason": "ready"})


def test_a_failing_probe_is_503_without_any_detail() -> None:
    for path in ("/health", "/ready"):
        result = client(BrokenProbe()).simulate_get(path)
        assert result.status_code == 503
        assert "secret-host" not in result.text
        assert "Traceback" not in result.text
        assert result.json["reason"] == "state_unreadable"


def test_unknown_paths_are_404() -> None:
    probe = FixedProbe(
        HealthVerdict(healthy=True, reason="ok", heartbeat_age=0.0, job_in_progress=False),
        ReadinessVerdict(True, "ready"),
    )
    assert client(probe).simulate_get("/config").status_code == 404


@pytest.mark.parametrize(("age", "code"), [(9.0, 200), (10.0, 503)])
def test_the_store_probe_applies_the_configured_timeout(age: float, code: int) -> None:
    clock = FakeClock(1_000.0)
    store = FakeHeartbeatStore()
    store.set_status(WorkerStatus.RUNNING)
    store.beat(1_000.0 - age)
    probe = StoreProbe(store, heartbeat_timeout=10.0, clock=clock.now)
    result = client(probe).simulate_get("/health")
    assert result.status_code == code
    assert result.json["heartbeat_age_seconds"] == age


def test_the_gunicorn_command_passes_the_store_and_limits_by_environment() -> None:
    argv = gunicorn_command("127.0.0.1:8085", "psm_abc", heartbeat_timeout=2.0, python="py")
    assert argv[:3] == ["py", "-m", "gunicorn"]
    assert argv[argv.index("--bind") + 1] == "127.0.0.1:8085"
    assert "NRF_HEARTBEAT_STORE=psm_abc" in argv
    assert "HEARTBEAT_TIMEOUT=2.0" in argv
    assert argv[-1] == "nrf.entrypoints.health_app:get_gate()"
    assert argv[argv.index("--worker-class") + 1].endswith("HypercornWorker")
    # No gunicornc control socket: under a $HOME it cannot write it logs a plain-text ERROR.
    assert "--no-control-socket" in argv
