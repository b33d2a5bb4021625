"""A batch's sites spread over forked processes; the caller works its share too."""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypeVar

_T = TypeVar("_T")
# Sites of a stream in flight at once: ~50 MB of real-shaped sites and their results.
WINDOW = 2048
_R = TypeVar("_R")


class ChildFailed(RuntimeError):
    """A forked child died or could not send its results back."""


def blocks(count: int, size: int) -> list[range]:
    """Consecutive index ranges of ``size`` (the last may be shorter) covering ``count``."""
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def _child(
    fn: Callable[[Any], Any], items: Sequence[Any], mine: list[range], send: Connection
) -> None:
    try:
        for block in mine:
            send.send(("ok", [fn(items[i]) for i in block]))
    except BaseException as exc:  # whatever failed must reach the parent
        try:
            send.send(("error", exc))
        except Exception:  # the exception itself would not pickle
            send.send(("error", ChildFailed(f"{type(exc).__name__}: {exc}")))
    finally:
        send.close()


def spare_cpus(cpus: float, load: float, runnable: int) -> float:
    """CPUs beyond the caller's own that neither the last minute's load nor the tasks
    runnable right now are using.

    The load average lags a busy neighbour by a minute (a loop started 45 s ago shows as
    0.7), so the tasks runnable at this moment count as well; the caller is one of them,
    and counts in the load too, so it is not subtracted twice.
    """
    return cpus - max(load, float(runnable), 1.0)


def runnable_now(path: str = "/proc/loadavg") -> int:
    """Tasks runnable at this moment, the caller included (Linux); 0 where unknown."""
    try:
        with open(path, encoding="ascii") as stats:
            return int(stats.read().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        return 0


def spare_cpus_now() -> float:
    """``spare_cpus`` for this machine now (Linux, macOS; elsewhere the CPUs are ours)."""
    cpus = float(
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )
    try:
        load = os.getloadavg()[0]
    except OSError:  # not available here: assume the CPUs are ours
        return cpus - 1
    return spare_cpus(cpus, load, runnable_now())


class ForkedSiteMap:
    """``map`` whose batches of ``min_items`` or more run on ``processes`` processes.

    Only as many processes as there are spare CPUs (``spare_cpus``, by default from the
    load average and the tasks runnable now) are forked; with none spare the batch runs in
    the calling process.

    Children are forked per batch, so they start with everything the caller has loaded
    (nothing to pickle but results). Blocks of sites are dealt round-robin, which evens
    out a few large sites, and come back block by block, so results still stream in
    input order (progress keeps moving) and a child's exception is raised in the caller.

    ``AssessDevelopments`` maps chunks of ``CHUNK`` (12) sites, not sites, so the default
    ``min_items`` of 4 forks a batch of about 48 sites or more: below that, forking costs more
    than the share of the work it takes (issue 32).

    Items that are not a short sequence (a national file read as it goes) are taken
    ``window`` at a time, each window a batch of its own: at most ``window`` items and
    their results are in flight, whatever the file's size.
    """

    def __init__(
        self,
        processes: int,
        min_items: int = 4,
        spare_cpus: Callable[[], float] = spare_cpus_now,
        window: int | None = None,
    ) -> None:
        if processes < 1:
            raise ValueError("processes must be at least 1")
        window = WINDOW if window is None else window
        if window < 1:
            raise ValueError("window must be at least 1")
        self.processes = processes
        self.min_items = min_items
        self.spare_cpus = spare_cpus
        self.window = window

    def __call__(self, fn: Callable[[_T], _R], items: Iterable[_T]) -> Iterator[_R]:
        if isinstance(items, Sequence) and len(items) <= self.window:
            return self._batch(fn, items)
        return self._windows(fn, iter(items))

    def _windows(self, fn: Callable[[_T], _R], items: Iterator[_T]) -> Iterator[_R]:
        while window := list(itertools.islice(items, self.window)):
            yield from self._batch(fn, window)
            del window  # before the next one is read

    def parts_for(self, count: int) -> int:
        """The processes a batch of ``count`` items would run on now; 1 is the caller alone."""
        parts = min(self.processes, count // max(1, self.min_items // 2))
        if parts < 2 or count < self.min_items or sys.platform == "win32":
            return 1
        # A child only helps on a CPU nobody else is using: on a busy machine it adds its
        # start-up and its results' trip back, and takes longer, not shorter.
        parts = min(parts, 1 + max(0, math.floor(self.spare_cpus() + 0.25)))
        return parts if parts >= 2 else 1

    def _batch(self, fn: Callable[[_T], _R], items: Sequence[_T]) -> Iterator[_R]:
        parts = self.parts_for(len(items))
        if parts < 2:
            return map(fn, items)
        return self._forked(fn, items, parts)

    def _forked(self, fn: Callable[[_T], _R], items: Sequence[_T], parts: int) -> Iterator[_R]:
        context = multiprocessing.get_context("fork")
        dealt = blocks(len(items), max(1, min(32, len(items) // (parts * 16))))
        # A child flushes the stdio buffers it inherits: empty them first or text is doubled.
        sys.stdout.flush()
        sys.stderr.flush()
        children: list[tuple[Any, Connection]] = []
        try:
            for k in range(1, parts):
                receive, send = context.Pipe(duplex=False)
                process = context.Process(
                    target=_child, args=(fn, items, dealt[k::parts], send), daemon=True
                )
                process.start()
                send.close()
                children.append((process, receive))
            for index, block in enumerate(dealt):
                owner = index % parts
                if owner == 0:
                    yield from (fn(items[i]) for i in block)
                else:
                    yield from self._receive(*children[owner - 1])
        finally:
            for process, receive in children:
                receive.close()
                if process.is_alive():
                    process.kill()
                process.join()

    @staticmethod
    def _receive(process: Any, receive: Connection) -> list[Any]:
        try:
            status, payload = receive.recv()
        except EOFError:
            process.join()
            raise ChildFailed(
                f"a forked assessment process ended early (exit code {process.exitcode})"
            ) from None
        if status != "ok":
            raise payload
        results: list[Any] = payload
        return results
