"""Child processes that do the geo work, so polling and heartbeats never wait for it.

A dead job process breaks the whole pool (``BrokenProcessPool``); :meth:`JobProcesses.recover`
replaces it and remembers which jobs were running in a process that died on its own, so the
worker retries those with a back-off and hands the others (killed with the pool) back at once.
Which job each process runs is marked in a temporary folder named for the worker's pid: a
killed worker never removes its own, so the next one to start removes those of dead pids.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any, Protocol

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.worker.lifeline import die_with_parent

log = logging.getLogger("nrf.worker")

Job = Callable[[Any], Any]
_job: Job | None = None
_marks: Path | None = None
EXIT_ORPHANED = 70
WARM_UP_ATTEMPTS = 3
WARM_UP_ROUNDS, WARM_UP_PAUSE = 600, 0.05  # up to ~30 s for every process to answer
MARKS_PREFIX = "nrf-job-marks-"


def _exit_with_parent() -> None:
    """Die as soon as the worker process does, even by kill -9.

    An orphaned job process would finish its job next to the restarted worker's copy of
    the same message: two computations and two emails.
    """
    die_with_parent(signal.SIGKILL)
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])  # readable once the parent has gone, however it went
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="nrf-parent-watch", daemon=True).start()


def _init_child(settings: WorkerSettings) -> None:
    """Build this child's own root (clients and the bundle are per process)."""
    global _job
    from nrf.adapters.telemetry.logging_setup import configure_logging
    from nrf.entrypoints.roots.job import build_job_root
    from nrf.entrypoints.startup_heap import freeze_startup_heap

    configure_logging(secrets=settings.secrets())
    container = build_job_root(settings)
    container.boundary_data().info()  # read the bundle digest now rather than in the first job
    _job = container.process_job()
    freeze_startup_heap()
    log.info("job_process_ready", extra={"pid": os.getpid()})


def _start_child(marks: str, init: Callable[..., None], init_args: tuple[Any, ...]) -> None:
    global _marks
    # The worker process owns shutdown: a Ctrl-C reaching the whole group must not kill jobs.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _exit_with_parent()
    _marks = Path(marks)
    init(*init_args)


def _run(key: str, work: Any) -> Any:
    """Note which job this process runs (read if it dies), then run it."""
    assert _job is not None, "job process not initialised"
    if _marks is not None:
        temp = _marks / f".{os.getpid()}.tmp"
        temp.write_text(key)
        os.replace(temp, _marks / str(os.getpid()))
    return _job(work)


def _pid_after(seconds: float) -> int:
    """A warm-up answer; the pause leaves room for the other job processes to answer too."""
    time.sleep(seconds)
    return os.getpid()


class JobProcesses:
    """A pool of job processes that is replaced whole when one of them dies."""

    def __init__(
        self,
        settings: WorkerSettings,
        init: Callable[..., None] = _init_child,
        init_args: tuple[Any, ...] | None = None,
        marks_root: str | os.PathLike[str] | None = None,
    ) -> None:
        self._settings = settings
        self._init, self._init_args = init, (settings,) if init_args is None else init_args
        root = Path(marks_root if marks_root is not None else tempfile.gettempdir())
        swept = sweep_stale_marks(root)
        if swept:
            log.info("stale_job_marks_removed", extra={"folders": swept})
        self._marks = Path(tempfile.mkdtemp(prefix=f"{MARKS_PREFIX}{os.getpid()}-", dir=root))
        self._died_running: set[str] = set()
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self._settings.concurrency,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_child,
            initargs=(str(self._marks), self._init, self._init_args),
        )

    def submit(self, key: str, work: Any) -> Future[Any]:
        """Run ``work`` in a job process; a pool broken by a dead process is replaced first."""
        try:
            return self._pool.submit(_run, key, work)
        except BrokenProcessPool:
            self.recover()
            return self._pool.submit(_run, key, work)

    def warm_up(self) -> None:
        """Start every job process now, so the first job does not pay for the imports.

        A job process that dies while starting breaks the pool like any other: it is
        replaced and the warm-up tried again (a few times: a cause that stays is fatal).
        """
        for attempt in range(1, WARM_UP_ATTEMPTS + 1):
            try:
                self._until_each_answered()
                return
            except BrokenProcessPool:
                log.error("job_process_died_warming_up", extra={"attempt": attempt})
                if attempt == WARM_UP_ATTEMPTS:
                    raise
                self.recover()

    def _until_each_answered(self) -> None:
        """Ask for pids until every job process has answered, so each one finished starting.

        One quick process could otherwise answer for all while another is still starting,
        and a death during that start would break the pool under the first job instead.
        """
        want, seen = self._settings.concurrency, set()
        for _ in range(WARM_UP_ROUNDS):
            futures = [self._pool.submit(_pid_after, WARM_UP_PAUSE) for _ in range(want)]
            seen |= {future.result() for future in futures}
            if len(seen) >= want:
                return
        log.warning("job_processes_slow_to_start", extra={"answered": len(seen), "of": want})

    def recover(self) -> bool:
        """Replace the pool if a job process died (True); a healthy pool is left alone."""
        if not getattr(self._pool, "_broken", False):
            return False
        for pid, process in _processes(self._pool).items():
            code = exit_code(process, seconds=5)
            # The pool itself terminates the survivors (SIGTERM); any other end is a death.
            if code is not None and code != -signal.SIGTERM:
                with contextlib.suppress(OSError):
                    self._died_running.add((self._marks / str(pid)).read_text())
                log.error("job_process_died", extra={"pid": pid, "exit_code": code})
        self.terminate()
        self._pool = self._new_pool()
        return True

    def died_running(self, key: str) -> bool:
        """Whether the job ``key`` was running in a job process that died on its own."""
        return key in self._died_running

    def forget(self, key: str) -> None:
        self._died_running.discard(key)

    def replace(self) -> None:
        """After a timeout: throw the pool (and the job processes in it) away, start anew."""
        self.terminate()
        self._pool = self._new_pool()

    def terminate(self) -> None:
        """Stop at once: kill job processes still running (their messages are handed back)."""
        processes = list(_processes(self._pool).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join(5)

    def close(self) -> None:
        self.terminate()
        shutil.rmtree(self._marks, ignore_errors=True)


def sweep_stale_marks(root: Path) -> int:
    """Remove the marks folders of workers whose pid is gone; returns how many went."""
    removed = 0
    for folder in root.glob(f"{MARKS_PREFIX}*"):
        pid = folder.name[len(MARKS_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) > 0 and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def exit_code(process: _Exiting, seconds: float) -> int | None:
    """The process's exit code once known, waiting up to ``seconds`` (None if still running).

    The pool is ending the survivors, and a process that just died may not be reaped yet
    (its pipe closes a moment before waitpid sees it). The pool's own thread reaps the same
    processes: when it wins the race, our waitpid fails with ECHILD and ``exitcode`` reads
    None for a moment although the process is dead, so one read is not enough.
    """
    deadline = time.monotonic() + seconds
    while True:
        process.join(max(0.0, min(0.05, deadline - time.monotonic())))
        code = process.exitcode
        if code is not None or time.monotonic() >= deadline:
            return code


class _Exiting(Protocol):
    """What :func:`exit_code` needs of a process."""

    @property
    def exitcode(self) -> int | None: ...

    def join(self, timeout: float | None = None) -> None: ...


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive, and not ours to judge
        return True
    return True


def _processes(pool: ProcessPoolExecutor) -> dict[int, multiprocessing.process.BaseProcess]:
    # After a first terminate the pool has forgotten its processes (None).
    return dict(getattr(pool, "_processes", None) or {})
