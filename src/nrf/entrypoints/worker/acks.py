"""Where the worker's delete / change-visibility calls run: inline or on a background thread."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol


class Acks(Protocol):
    """Runs an acknowledgement; a ThreadPoolExecutor is one, InlineAcks another."""

    def submit(self, fn: Callable[[], None], /) -> Future[None]: ...


class InlineAcks:
    """Runs an acknowledgement at once, in the caller's thread (tests; the simple case)."""

    def submit(self, fn: Callable[[], None]) -> Future[None]:
        future: Future[None] = Future()
        try:
            fn()
            future.set_result(None)
        except BaseException as exc:  # handed to whoever reads the future, as a pool would
            future.set_exception(exc)
        return future
