"""SIGTERM stops a command the way Ctrl-C does, so its clean-up runs before it exits.

Python's default SIGTERM action kills the process on the spot, leaving a half-written staging
file; turned into an exception, the same ``except``/``finally`` blocks that handle Ctrl-C
remove it. Exit status 143 (128 + 15) is what a shell reports for a process killed by SIGTERM.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

from nrf.entrypoints.exit_codes import EXIT_TERMINATED

__all__ = ["EXIT_TERMINATED", "Terminated", "sigterm_raises"]


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException, like KeyboardInterrupt: only clean-up catches it)."""


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Terminated(f"signal {signum}")


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """While inside, SIGTERM raises Terminated in the main thread; the old handler returns after."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
