"""Small timing helpers: milliseconds, medians and peak memory."""

from __future__ import annotations

import os
import resource
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return ms_since(started), value


def repeat_ms(fn: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    """Run ``fn`` ``repeats`` times; every duration in ms and the last value."""
    times, value = [], None
    for _ in range(max(1, repeats)):
        ms, value = timed(fn)
        times.append(round(ms, 3))
    return times, value


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def peak_rss_mb() -> float:
    """This process's peak resident set size so far.

    VmHWM first: Linux keeps ru_maxrss across exec, so a child would report its parent's
    peak (the parent may just have generated a bundle); VmHWM starts again at exec.
    """
    own = vm_hwm_mb(os.getpid())
    if own is not None:
        return own
    scale = 1 / (1 << 20) if sys.platform == "darwin" else 1 / 1024
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale, 1)


def vm_hwm_mb(pid: int) -> float | None:
    """Peak RSS of another live process from /proc (Linux), None if unavailable."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cpu_seconds(server_pids: tuple[int, ...] = ()) -> float:
    """CPU (user + system) of this process, its reaped children and any ``server_pids``.

    Forked assessment children are joined at the end of each batch, so their CPU is in
    RUSAGE_CHILDREN by the time the batch returns; a database server's backend is read
    from /proc.
    """
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in server_pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def repeat_ms_cpu(
    fn: Callable[[], Any], repeats: int, server_pids: tuple[int, ...] = ()
) -> tuple[list[float], list[float], Any]:
    """Like ``repeat_ms``, also the CPU ms of every run across all the processes involved."""
    times, cpus, value = [], [], None
    for _ in range(max(1, repeats)):
        cpu0 = cpu_seconds(server_pids)
        ms, value = timed(fn)
        times.append(round(ms, 3))
        cpus.append(round((cpu_seconds(server_pids) - cpu0) * 1000, 1))
    return times, cpus, value


def children_peak_rss_mb() -> float:
    """The largest peak RSS of any reaped child (forked assessment processes)."""
    scale = 1 / (1 << 20) if sys.platform == "darwin" else 1 / 1024
    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale, 1)


def pss_mb(pid: int) -> float | None:
    """Proportional set size now (Linux): shared pages split between the processes using
    them, so adding it up over processes counts each page once, unlike RSS."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


class PeakPss:
    """The largest sum of PSS over ``pids()`` seen while the block runs, sampled every
    ``interval`` seconds by a thread: a lower bound on the true peak (a spike between two
    samples is missed), where adding up each process's peak RSS counts shared pages (the
    libraries, the mapped bundle) once per process and overstates it."""

    def __init__(self, pids: Callable[[], list[int]], interval: float = 0.1) -> None:
        self._pids, self._interval = pids, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="peak-pss", daemon=True)
        self.peak_mb: float | None = None
        self.samples = 0

    def _sample(self) -> None:
        while True:
            sizes = [v for v in (pss_mb(pid) for pid in self._pids()) if v is not None]
            if sizes:  # none where /proc has no smaps_rollup (not Linux): peak stays None
                total = round(sum(sizes), 1)
                self.peak_mb = total if self.peak_mb is None else max(self.peak_mb, total)
                self.samples += 1
            if self._stop.wait(self._interval):
                return

    def __enter__(self) -> PeakPss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
