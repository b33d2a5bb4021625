"""The worker's /health and /ready endpoints: a Falcon app served in its own process.

It is served like the API (gunicorn's process, hypercorn's connections, ``http_server/``) with
``HEALTH_LIMITS``: a client holding connections open or trickling headers never stops ECS's
check from being answered. It listens on 127.0.0.1 by default, where the check runs.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Protocol

import falcon

from nrf.adapters.http_server.command import server_command
from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.limits import HEALTH_LIMITS
from nrf.domain.health import (
    DEFAULT_HEARTBEAT_TIMEOUT,
    DEFAULT_TASK_TIMEOUT_BUFFER,
    HealthVerdict,
    ReadinessVerdict,
    evaluate_health,
    evaluate_readiness,
)
from nrf.domain.ports import HeartbeatStore

STORE_ENV = "NRF_HEARTBEAT_STORE"
HEARTBEAT_TIMEOUT_ENV = "HEARTBEAT_TIMEOUT"
TASK_TIMEOUT_BUFFER_ENV = "TASK_TIMEOUT_BUFFER"
SUPERVISOR_PID_ENV = "NRF_SUPERVISOR_PID"
APP = "nrf.entrypoints.health_app:get_gate()"


class HealthProbe(Protocol):
    """What the endpoints need to know; may raise, which reads as unavailable."""

    def health(self) -> HealthVerdict: ...

    def readiness(self) -> ReadinessVerdict: ...


class StoreProbe:
    """Judges a HeartbeatStore's snapshot with the pure health policy."""

    def __init__(
        self,
        store: HeartbeatStore,
        *,
        heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT,
        task_timeout_buffer: float = DEFAULT_TASK_TIMEOUT_BUFFER,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._timeout = heartbeat_timeout
        self._buffer = task_timeout_buffer
        self._clock = clock

    def health(self) -> HealthVerdict:
        snapshot = self._store.snapshot()
        return evaluate_health(snapshot, self._clock(), self._timeout, self._buffer)

    def readiness(self) -> ReadinessVerdict:
        return evaluate_readiness(self._store.snapshot())


class WorkerHealthResource:
    def __init__(self, probe: HealthProbe) -> None:
        self._probe = probe

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        try:
            verdict = self._probe.health()
        except Exception:  # the body must never carry a stack trace
            resp.status = falcon.HTTP_503
            resp.media = {"status": "unavailable", "reason": "state_unreadable"}
            return
        resp.status = falcon.HTTP_200 if verdict.healthy else falcon.HTTP_503
        resp.media = {
            "status": "ok" if verdict.healthy else "unavailable",
            "reason": verdict.reason,
            "heartbeat_age_seconds": round(verdict.heartbeat_age, 3),
            "job_in_progress": verdict.job_in_progress,
        }


class WorkerReadyResource:
    def __init__(self, probe: HealthProbe) -> None:
        self._probe = probe

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        try:
            verdict = self._probe.readiness()
        except Exception:
            verdict = ReadinessVerdict(False, "state_unreadable")
        resp.status = falcon.HTTP_200 if verdict.ready else falcon.HTTP_503
        resp.media = {"status": "ready" if verdict.ready else "not_ready", "reason": verdict.reason}
        if verdict.bundle_version:  # which reference data this worker quotes from
            resp.media["bundle_version"] = verdict.bundle_version


def create_app(probe: HealthProbe) -> falcon.App:
    # Falcon's default error pages are already free of tracebacks; keep them.
    app = falcon.App()
    app.add_route("/health", WorkerHealthResource(probe))
    app.add_route("/ready", WorkerReadyResource(probe))
    return app


def get_app() -> falcon.App:
    """Gunicorn's factory: attach to the store named in the environment."""
    from nrf.entrypoints.roots.supervisor import attached_heartbeat

    store = attached_heartbeat(os.environ[STORE_ENV])
    if os.environ.get(SUPERVISOR_PID_ENV):
        from nrf.entrypoints.worker.lifeline import stop_server_without

        stop_server_without(int(os.environ[SUPERVISOR_PID_ENV]))
    probe = StoreProbe(
        store,
        heartbeat_timeout=float(os.environ.get(HEARTBEAT_TIMEOUT_ENV, DEFAULT_HEARTBEAT_TIMEOUT)),
        task_timeout_buffer=float(
            os.environ.get(TASK_TIMEOUT_BUFFER_ENV, DEFAULT_TASK_TIMEOUT_BUFFER)
        ),
    )
    return create_app(probe)


def get_gate() -> Gate:
    """The factory gunicorn's HypercornWorker loads: the health app behind its connection gate
    (its refusals logged as JSON lines, as the API's are)."""
    from nrf.adapters.telemetry.logging_setup import configure_logging
    from nrf.entrypoints.roots.supervisor import health_gate

    configure_logging()
    return health_gate(get_app())


def gunicorn_command(
    bind: str,
    store_name: str,
    *,
    heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT,
    task_timeout_buffer: float = DEFAULT_TASK_TIMEOUT_BUFFER,
    python: str = sys.executable,
) -> list[str]:
    """The argv that serves the health app on ``bind`` (``host:port``) from one process."""
    env = (
        f"{STORE_ENV}={store_name}",
        f"{HEARTBEAT_TIMEOUT_ENV}={heartbeat_timeout}",
        f"{TASK_TIMEOUT_BUFFER_ENV}={task_timeout_buffer}",
    )
    return server_command(APP, bind, HEALTH_LIMITS, env=env, python=python)
