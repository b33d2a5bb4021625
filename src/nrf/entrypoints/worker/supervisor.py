"""The supervisor: starts the health server and the worker process, restarts a crashed one.

Its children die with it (see ``lifeline``), so killing it never leaves a worker taking jobs.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from types import FrameType

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.worker.exit_codes import ExitCode
from nrf.entrypoints.worker.lifeline import die_with_parent

log = logging.getLogger("nrf.main")

MAX_RESTARTS = 5
RESTART_WINDOW_SECONDS = 300.0
# Past the grace, time for the worker to hand jobs back before it is killed (ECS waits longer).
SUPERVISOR_MARGIN_SECONDS = 15.0


class Supervisor:
    """Starts the health server and the worker process, forwards signals, restarts a crash."""

    def __init__(
        self,
        settings: WorkerSettings,
        environ: Mapping[str, str],
        worker_main: Callable[[WorkerSettings, object, int | None], None],
    ) -> None:
        from nrf.entrypoints.roots.supervisor import created_heartbeat

        self._s, self._worker_main = settings, worker_main
        self._env = dict(environ)
        self._store = created_heartbeat()
        self._ctx = multiprocessing.get_context("spawn")
        self._stopping = threading.Event()
        self._worker: multiprocessing.process.BaseProcess | None = None
        self._health: subprocess.Popen[bytes] | None = None
        self._restarts: list[float] = []

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        try:
            self._start_health()
            # Download and verify the pinned bundle first; the worker opens only that file.
            from nrf.entrypoints.reference_bundle import verify_reference_data

            verified = verify_reference_data(self._s, self._store, self._stopping.is_set)
            if isinstance(verified, int):
                return verified
            self._s = verified
            self._start_worker()
            return self._supervise()
        finally:
            self._stop_health()
            self._store.close()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self._stopping.is_set():
            return
        log.info("shutdown_requested", extra={"signal": signal.Signals(signum).name})
        self._stopping.set()
        self._store.set_draining(True)
        if self._worker is not None and self._worker.pid and self._worker.is_alive():
            os.kill(self._worker.pid, signal.SIGTERM)

    def _start_health(self) -> None:
        from nrf.entrypoints.health_app import SUPERVISOR_PID_ENV, gunicorn_command

        command = gunicorn_command(
            f"{self._s.health_host}:{self._s.health_port}",
            self._store.name,
            heartbeat_timeout=self._s.heartbeat_timeout,
            task_timeout_buffer=self._s.task_timeout_buffer,
        )
        env = {**self._env, SUPERVISOR_PID_ENV: str(os.getpid())}
        # The server stops with the supervisor, even one killed by kill -9.
        self._health = subprocess.Popen(command, env=env, preexec_fn=_stop_with_parent)
        log.info("health_started", extra={"pid": self._health.pid, "port": self._s.health_port})

    def _stop_health(self) -> None:
        if self._health is None or self._health.poll() is not None:
            return
        self._health.terminate()
        try:
            self._health.wait(10)
        except subprocess.TimeoutExpired:
            self._health.kill()
            self._health.wait(5)

    def _start_worker(self) -> None:
        self._worker = self._ctx.Process(
            target=self._worker_main,
            args=(self._s, self._store, os.getpid()),
            name="nrf-worker",
        )
        self._worker.start()
        log.info("worker_process_started", extra={"pid": self._worker.pid})

    def _supervise(self) -> int:
        assert self._worker is not None
        grace_deadline: float | None = None
        while True:
            self._worker.join(0.5)
            if (
                self._health is not None
                and self._health.poll() is not None
                and not (self._stopping.is_set())
            ):
                log.error("health_server_died", extra={"exit_code": self._health.returncode})
                self._start_health()
            if self._stopping.is_set() and grace_deadline is None:
                grace = self._s.shutdown_grace_seconds + SUPERVISOR_MARGIN_SECONDS
                grace_deadline = time.monotonic() + grace
            if self._worker.is_alive():
                if grace_deadline is not None and time.monotonic() > grace_deadline:
                    log.error("worker_did_not_stop", extra={"pid": self._worker.pid})
                    self._worker.kill()
                continue
            code = self._worker.exitcode
            if self._stopping.is_set():
                return ExitCode.CLEAN if code == 0 else ExitCode.FATAL
            if code == ExitCode.FATAL:
                log.error("worker_fatal", extra={"exit_code": code})
                return ExitCode.FATAL
            if not self._may_restart():
                log.error("worker_keeps_crashing", extra={"restarts": len(self._restarts)})
                return ExitCode.FATAL
            # Its messages come back when their visibility runs out; nothing is lost.
            log.error("worker_process_died", extra={"exit_code": code})
            self._start_worker()

    def _may_restart(self) -> bool:
        now = time.monotonic()
        self._restarts = [t for t in self._restarts if now - t < RESTART_WINDOW_SECONDS]
        self._restarts.append(now)
        return len(self._restarts) <= MAX_RESTARTS


def _stop_with_parent() -> None:
    """Runs in the health server's process before exec: SIGTERM it when the supervisor dies."""
    die_with_parent(signal.SIGTERM)
