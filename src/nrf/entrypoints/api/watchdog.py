"""One timer thread per process for every request's body deadline, instead of one per request.

Starting a ``threading.Timer`` costs a thread start and a handshake with it (about 1.5 ms, as
much as the quote itself); registering a deadline here costs a lock and a heap push. The thread
is started lazily and again after a fork, since a forked child has no copy of it.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable


class _Entry:
    __slots__ = ("action", "active")

    def __init__(self, action: Callable[[], None]) -> None:
        self.action, self.active = action, True


class Watchdog:
    """Runs ``action`` once ``seconds`` have passed, unless the returned cancel ran first."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, _Entry]] = []
        self._order = itertools.count()
        self._pid: int | None = None

    def watch(self, seconds: float, action: Callable[[], None]) -> Callable[[], None]:
        entry = _Entry(action)
        with self._cond:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._heap = []
                threading.Thread(target=self._run, name="nrf-body-deadline", daemon=True).start()
            heapq.heappush(self._heap, (self._clock() + seconds, next(self._order), entry))
            self._cond.notify()

        def cancel() -> None:
            entry.active = False

        return cancel

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap or not self._heap[0][2].active:
                    if self._heap:
                        heapq.heappop(self._heap)  # cancelled: forget it
                    else:
                        self._cond.wait()
                due, _, entry = self._heap[0]
                wait = due - self._clock()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
            if entry.active:
                entry.action()


WATCHDOG = Watchdog()
