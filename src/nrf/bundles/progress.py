"""Progress of a long step on stderr: count, rate and time left, at most every few seconds."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    return f"{minutes}m{secs:02d}s"


def rate_printer(
    label: str,
    *,
    every: float = 2.0,
    stream: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callback printing e.g. ``1,000/5,000 (2,500/s, ETA 0m02s)``."""
    started = clock()
    last = [started - every]

    def show(done: int, total: int) -> None:
        now = clock()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        rate = done / (now - started) if now > started else 0.0
        eta = _clock((total - done) / rate) if rate > 0 else "?"
        print(
            f"{label} {done:,}/{total:,} ({rate:,.0f}/s, ETA {eta})",
            file=stream or sys.stderr,
            flush=True,
        )

    return show
