"""`nrf worker`: the main process that supervises the worker process and the health server."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from types import FrameType

from nrf.entrypoints.settings import WorkerSettings

log = logging.getLogger("nrf.main")

EXIT_CLEAN, EXIT_CONFIG, EXIT_FATAL = 0, 2, 3
MAX_RESTARTS = 5
RESTART_WINDOW_SECONDS = 300.0
# Past the grace, time for the worker to hand jobs back before it is killed (ECS waits longer).
SUPERVISOR_MARGIN_SECONDS = 15.0


def worker_process_main(settings: WorkerSettings, heartbeat: object) -> None:
    """Entry of the worker process: poll, dispatch to job processes, drain on SIGTERM."""
    from nrf.adapters.clock.system_clock import SystemClock
    from nrf.domain.errors import NrfError
    from nrf.domain.ports import HeartbeatStore
    from nrf.entrypoints.container import build_container
    from nrf.entrypoints.logging_setup import configure_logging, publish_metrics
    from nrf.entrypoints.worker.fleet_beats import bundle_stamp, start_fleet_heartbeat
    from nrf.entrypoints.worker.job_processes import JobProcesses
    from nrf.entrypoints.worker.loop import EXIT_FATAL as LOOP_FATAL
    from nrf.entrypoints.worker.loop import STATUS_ERROR, WorkerLoop

    store: HeartbeatStore = heartbeat  # type: ignore[assignment]
    configure_logging(secrets=[settings.notify_api_key or ""])
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("stop_requested", extra={"signal": signal.Signals(signum).name})
        store.set_draining(True)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    container = build_container(settings=settings)
    try:
        # Refuse a broken bundle now, not on the first job; hashing it now (or reading its
        # digest sidecar) also keeps that cost out of the first job.
        container.boundary_data().info()
        queue = container.job_queue()
    except NrfError as exc:
        log.error("worker_cannot_start", extra={"code": exc.code, "error": exc.message})
        store.set_status(STATUS_ERROR)
        sys.exit(LOOP_FATAL)
    store.set_ready(bundle_loaded=True, queue_reachable=False)
    processes = JobProcesses(settings)
    processes.warm_up()
    log.info("worker_started", extra={"pid": os.getpid(), "concurrency": settings.concurrency})
    metrics = lambda status, seconds, job_id: publish_metrics(  # noqa: E731
        settings.metrics_namespace, status, seconds, job_id)  # fmt: skip
    claims = container.result_store()
    # One thread: acknowledgements stay in order and never pile up on the endpoint.
    acks = ThreadPoolExecutor(1, thread_name_prefix="nrf-ack")
    loop = WorkerLoop(
        queue, store, processes, settings, SystemClock(), stop, metrics, claims=claims,
        acks=acks,
    )  # fmt: skip
    beats = start_fleet_heartbeat(settings, container.ops_records(),
                                  bundle_stamp(container.boundary_data().info()), store,
                                  lambda: loop.jobs_in_flight)  # fmt: skip
    code = loop.run()
    beats.stop(clean=code == EXIT_CLEAN)
    acks.shutdown(wait=True)
    processes.terminate()
    log.info("worker_stopped", extra={"exit_code": code})
    sys.exit(code)


class Supervisor:
    """Starts the health server and the worker process, forwards signals, restarts a crash."""

    def __init__(self, settings: WorkerSettings, environ: Mapping[str, str]) -> None:
        from nrf.adapters.heartbeat.shared_memory_heartbeat_store import SharedMemoryHeartbeatStore

        self._s = settings
        self._env = dict(environ)
        self._store = SharedMemoryHeartbeatStore.create()
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
        from nrf.entrypoints.health_app import gunicorn_command

        command = gunicorn_command(
            f"{self._s.health_host}:{self._s.health_port}", self._store.name,
            heartbeat_timeout=self._s.heartbeat_timeout,
            task_timeout_buffer=self._s.task_timeout_buffer,
        )  # fmt: skip
        self._health = subprocess.Popen(command, env=self._env)
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
            target=worker_process_main, args=(self._s, self._store), name="nrf-worker"
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
                return EXIT_CLEAN if code == 0 else EXIT_FATAL
            if code == EXIT_FATAL:
                log.error("worker_fatal", extra={"exit_code": code})
                return EXIT_FATAL
            if not self._may_restart():
                log.error("worker_keeps_crashing", extra={"restarts": len(self._restarts)})
                return EXIT_FATAL
            # Its messages come back when their visibility runs out; nothing is lost.
            log.error("worker_process_died", extra={"exit_code": code})
            self._start_worker()

    def _may_restart(self) -> bool:
        now = time.monotonic()
        self._restarts = [t for t in self._restarts if now - t < RESTART_WINDOW_SECONDS]
        self._restarts.append(now)
        return len(self._restarts) <= MAX_RESTARTS


def run_worker(environ: Mapping[str, str]) -> int:
    """Load settings (all bad variables at once), then supervise until stopped."""
    from nrf.entrypoints.logging_setup import configure_logging
    from nrf.entrypoints.settings import ConfigError, load_settings

    try:
        settings = load_settings(environ)
    except ConfigError as exc:
        configure_logging()
        log.error("bad_configuration", extra={"problems": exc.problems})
        return EXIT_CONFIG
    configure_logging(secrets=[settings.notify_api_key or ""])
    return Supervisor(settings, environ).run()
