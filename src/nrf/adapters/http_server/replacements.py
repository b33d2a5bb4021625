"""A worn process is replaced only while no sibling is: one process always serves.

gunicorn replaces a process after its quota of requests; the API's processes share requests
evenly, so with a small jitter they all reached their quotas within seconds of each other and
were replaced together, and /health and quotes failed while every new process opened the
bundle (about 1,000 cheap requests a process did it). Now a process that is due asks first:
it may go only when no other process is on its way out or still starting, and it waits (still
serving) otherwise. A new process says it is ready once its app is loaded. The state is one
number in memory shared by gunicorn's processes, created in the arbiter before it forks them;
a replacement that has not said ready within ``stale_seconds`` (its start failed) no longer
holds the others back.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable


class Replacements:
    """When the one replacement allowed at a time began (0.0: none), shared across a fork."""

    def __init__(self, stale_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._since = multiprocessing.get_context("fork").Value("d", 0.0)
        self._stale, self._clock = stale_seconds, clock

    def begin(self) -> bool:
        """True, and the caller must go, when no replacement is under way; else False."""
        with self._since.get_lock():
            now = self._clock()
            since = self._since.value
            if since and now - since < self._stale:
                return False
            self._since.value = now
            return True

    def ready(self) -> None:
        """A process has loaded its app and serves: the replacement under way is over."""
        with self._since.get_lock():
            self._since.value = 0.0
