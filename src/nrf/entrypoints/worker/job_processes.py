"""Child processes that do the geo work, so polling and heartbeats never wait for it."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.connection import wait

from nrf.domain.jobs import QueueMessage
from nrf.entrypoints.settings import WorkerSettings
from nrf.service_layer.job_outcome import JobOutcome
from nrf.service_layer.process_job import ProcessJob

log = logging.getLogger("nrf.worker")

_process_job: ProcessJob | None = None
EXIT_ORPHANED = 70


def _exit_with_parent() -> None:
    """Die as soon as the worker process does, even by kill -9.

    An orphaned job process would finish its job next to the restarted worker's copy of
    the same message: two computations and two emails.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])  # readable once the parent has gone, however it went
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="nrf-parent-watch", daemon=True).start()


def _init_child(settings: WorkerSettings) -> None:
    """Build this child's own container (clients and the bundle are per process)."""
    global _process_job
    # The worker process owns shutdown: a Ctrl-C reaching the whole group must not kill jobs.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _exit_with_parent()
    from nrf.entrypoints.container import build_container
    from nrf.entrypoints.logging_setup import configure_logging

    configure_logging(secrets=[settings.notify_api_key or ""])
    container = build_container(settings=settings)
    container.boundary_data().info()  # read the bundle digest now rather than in the first job
    _process_job = container.process_job()
    log.info("job_process_ready", extra={"pid": os.getpid()})


def _run(message: QueueMessage) -> JobOutcome:
    assert _process_job is not None, "job process not initialised"
    return _process_job(message)


def _run_timed_out(message: QueueMessage, seconds: float) -> JobOutcome:
    assert _process_job is not None, "job process not initialised"
    return _process_job.timed_out(message, seconds)


class JobProcesses:
    """A pool of job processes that can be torn down at once when the grace period ends."""

    def __init__(self, settings: WorkerSettings) -> None:
        self._settings = settings
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self._settings.concurrency,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_child,
            initargs=(self._settings,),
        )

    def submit(self, message: QueueMessage) -> Future[JobOutcome]:
        return self._pool.submit(_run, message)

    def submit_timed_out(self, message: QueueMessage, seconds: float) -> Future[JobOutcome]:
        """Record a killed job as failed (``job_timeout``) and tell the requester."""
        return self._pool.submit(_run_timed_out, message, seconds)

    def warm_up(self) -> None:
        """Start every job process now, so the first job does not pay for the imports."""
        futures = [self._pool.submit(os.getpid) for _ in range(self._settings.concurrency)]
        for future in futures:
            future.result()

    def replace(self) -> None:
        """After a job process died: throw the broken pool away and start a new one."""
        self.terminate()
        self._pool = self._new_pool()

    def terminate(self) -> None:
        """Stop at once: kill job processes still running (their messages are handed back)."""
        # After a first terminate the pool has forgotten its processes (None): nothing to do.
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join(5)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
