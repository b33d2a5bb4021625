"""The real clock and sleeper, for production wiring."""

from __future__ import annotations

import time


class SystemClock:
    """Wall-clock epoch seconds."""

    def now(self) -> float:
        return time.time()


class SystemSleeper:
    """Really waits."""

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))
