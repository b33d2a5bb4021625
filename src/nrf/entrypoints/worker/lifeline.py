"""A child dies with its parent: killing the supervisor must never leave its tree working.

Linux: ``prctl(PR_SET_PDEATHSIG)`` has the kernel signal the child the moment its parent
dies, even by ``kill -9``. Elsewhere (macOS for development), and as a second line on
Linux, a watchdog thread notices that the parent pid changed (re-parented to init).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable

log = logging.getLogger("nrf.worker")

PR_SET_PDEATHSIG = 1
WATCH_INTERVAL_SECONDS = 1.0


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


# Looked up once, at import: between fork and exec (preexec_fn) only the call itself is safe.
_PRCTL = _load_prctl()


def die_with_parent(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies (Linux only).

    Returns False where that is not available; use :func:`watch_parent` there. Call it in
    the child: the setting belongs to the calling process and survives ``exec``.
    """
    return _PRCTL is not None and _PRCTL(PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0


def watch_parent(
    parent_pid: int,
    on_orphaned: Callable[[], None],
    interval: float = WATCH_INTERVAL_SECONDS,
    getppid: Callable[[], int] = os.getppid,
) -> threading.Thread:
    """Call ``on_orphaned`` once, from a daemon thread, when the parent is no longer ``parent_pid``.

    Also covers the window before :func:`die_with_parent` took effect: a parent that died
    earlier has already handed this process to another parent.
    """
    return _watch(lambda: getppid() != parent_pid, on_orphaned, interval, parent_pid)


def stop_server_without(supervisor_pid: int, interval: float = WATCH_INTERVAL_SECONDS) -> None:
    """In a gunicorn worker: stop the whole server (its master) once the supervisor is gone.

    The master is the supervisor's child and gets the kernel's signal on Linux; this is the
    fallback elsewhere (it cannot tell a dead supervisor not yet reaped from a live one).
    """
    master = os.getppid()
    _watch(
        lambda: not _alive(supervisor_pid),
        lambda: os.kill(master, signal.SIGTERM),
        interval,
        supervisor_pid,
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _watch(
    orphaned: Callable[[], bool], on_orphaned: Callable[[], None], interval: float, parent: int
) -> threading.Thread:
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(interval):
            if orphaned():
                log.error("parent_gone", extra={"parent_pid": parent})
                on_orphaned()
                return

    thread = threading.Thread(target=watch, name="nrf-parent-watchdog", daemon=True)
    thread.start()
    return thread
