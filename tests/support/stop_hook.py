"""A hook on the moment an in-process hypercorn worker marks itself stopped, for race tests.

hypercorn sets its ``terminated`` event when a process stops, after it stopped accepting and
before it drains. Tests that must act at that very moment (in the same turn of the event loop,
not after a sleep) install ``call_on_stop(monkeypatch, action)`` before starting the worker.
"""

from __future__ import annotations

from collections.abc import Callable

import hypercorn.asyncio.run
import pytest
from hypercorn.asyncio.worker_context import EventWrapper, WorkerContext


class CallsAsItIsSet(EventWrapper):
    """hypercorn's ``terminated`` event, which runs ``action`` as it is set."""

    def __init__(self, action: Callable[[], None]) -> None:
        super().__init__()
        self.action = action
        self.called = False

    async def set(self) -> None:
        await super().set()
        self.action()
        self.called = True


def call_on_stop(
    monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]
) -> list[CallsAsItIsSet]:
    """From now on each hypercorn process made in this test runs ``action`` as it stops; the
    list holds one event for each process started."""
    events: list[CallsAsItIsSet] = []

    def context(max_requests: int | None) -> WorkerContext:
        made = WorkerContext(max_requests)
        made.terminated = event = CallsAsItIsSet(action)
        events.append(event)
        return made

    monkeypatch.setattr(hypercorn.asyncio.run, "WorkerContext", context)
    return events
