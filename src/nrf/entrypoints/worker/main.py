"""`nrf worker`: settings, then the supervisor; and the worker process's own entry point."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from types import FrameType

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.worker.exit_codes import ExitCode
from nrf.entrypoints.worker.lifeline import die_with_parent
from nrf.entrypoints.worker.supervisor import Supervisor

log = logging.getLogger("nrf.main")

# A partial write older than this has no writer left (a save renames its file at once).
STALE_TEMPORARY_SECONDS = 3600.0


# Long: the worker's start, loop and drain in order, so shutdown is read in one place.
def worker_process_main(
    settings: WorkerSettings, heartbeat: object, supervisor_pid: int | None = None
) -> None:
    """Entry of the worker process: poll, dispatch to job processes, drain on SIGTERM."""
    from nrf.adapters.telemetry.logging_setup import configure_logging
    from nrf.domain.errors import NrfError
    from nrf.domain.health import WorkerStatus
    from nrf.domain.ports import HeartbeatStore
    from nrf.entrypoints.roots.worker import build_worker_root
    from nrf.entrypoints.startup_heap import freeze_startup_heap
    from nrf.entrypoints.worker.fleet_beats import bundle_stamp, start_fleet_heartbeat
    from nrf.entrypoints.worker.lifeline import watch_parent

    store: HeartbeatStore = heartbeat  # type: ignore[assignment]
    configure_logging(secrets=settings.secrets())
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("stop_requested", extra={"signal": signal.Signals(signum).name})
        store.set_draining(True)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if supervisor_pid is not None:
        # Without its supervisor nobody watches this process: drain and stop (SIGTERM).
        die_with_parent(signal.SIGTERM)
        watch_parent(supervisor_pid, lambda: on_signal(signal.SIGTERM, None))
    container = build_worker_root(settings)
    try:
        # Refuse a broken bundle now, not on the first job; hashing it now (or reading its
        # digest sidecar) also keeps that cost out of the first job.
        container.boundary_data().info()
        container.job_queue()
        now = container.clock().now()
        swept = container.result_store().sweep_temporaries(now, STALE_TEMPORARY_SECONDS)
        if swept:
            log.info("temporaries_swept", extra={"count": swept})
    except NrfError as exc:
        log.error("worker_cannot_start", extra={"code": exc.code, "error": exc.message})
        store.set_status(WorkerStatus.ERROR)
        sys.exit(ExitCode.FATAL)
    store.set_ready(bundle_loaded=True, queue_reachable=False)
    processes = container.job_processes()
    processes.warm_up()
    freeze_startup_heap()
    if settings.emails_off():
        # Once, here: a kind left without a template is a choice, so no job warns about it.
        log.info("emails_not_sent", extra={"kinds": settings.emails_off()})
    log.info("worker_started", extra={"pid": os.getpid(), "concurrency": settings.concurrency})
    if settings.test_quote_date is not None:
        # A test setting: loud, so a deployment that carries it by mistake is seen at once.
        log.warning("quote_date_pinned", extra={"quote_date": settings.test_quote_date.isoformat()})
    # One thread: acknowledgements stay in order and never pile up on the endpoint.
    acks = ThreadPoolExecutor(1, thread_name_prefix="nrf-ack")
    loop = container.worker_loop(heartbeat=store, executor=processes, stop=stop, acks=acks)
    beats = start_fleet_heartbeat(
        settings,
        container.fleet_heartbeat,
        bundle_stamp(container.boundary_data().info()),
        store,
        lambda: loop.jobs_in_flight,
        container.clock(),
    )
    code = loop.run()
    beats.stop(clean=code == ExitCode.CLEAN)
    acks.shutdown(wait=True)
    processes.close()
    log.info("worker_stopped", extra={"exit_code": int(code)})
    sys.exit(code)


def run_worker(environ: Mapping[str, str]) -> int:
    """Load settings (all bad variables at once), then supervise until stopped."""
    from nrf.adapters.environment.settings import ConfigError, load_settings
    from nrf.adapters.telemetry.logging_setup import configure_logging

    try:
        settings = load_settings(environ)
    except ConfigError as exc:
        configure_logging()
        log.error("bad_configuration", extra={"problems": exc.problems})
        return ExitCode.CONFIG
    configure_logging(secrets=settings.secrets())
    return Supervisor(settings, environ, worker_process_main).run()
