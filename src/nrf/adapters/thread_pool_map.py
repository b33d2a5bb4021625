"""A batch's sites on a few threads: GEOS overlays and SQLite reads release the GIL."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")


class ThreadPoolMap:
    """``map`` over a lazily started pool of ``threads`` threads; results in input order."""

    def __init__(self, threads: int) -> None:
        if threads < 1:
            raise ValueError("threads must be at least 1")
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None
        self._pid = -1

    def __call__(self, fn: Callable[[_T], _R], items: Sequence[_T]) -> Iterator[_R]:
        if self.threads == 1 or len(items) < 2:
            return map(fn, items)
        return self._executor().map(fn, items)

    def _executor(self) -> ThreadPoolExecutor:
        # Threads do not survive a fork: a child process starts its own pool.
        if self._pool is None or self._pid != os.getpid():
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="nrf-site")
            self._pid = os.getpid()
        return self._pool
