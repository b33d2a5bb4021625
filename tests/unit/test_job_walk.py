"""One successful job walks through service_layer without going back and forth (issue 18).

The walk is traced with ``sys.setprofile`` (``sys.monitoring`` is 3.12+) while one job runs
through the container's own wiring (support/receives.py: read, claim, ProcessJob, release),
with recording fakes for the ports and the real assessment.

Definitions, precisely:

- A **step** is entering a service_layer module: a Python function of that module called
  from code of any other module (the worker, the domain, another service_layer module). A
  call from a module into itself is not a step: the reader never leaves the file.
- Two steps in a row into the same module are one step: ``ProcessJob`` asking
  ``notifications.py`` for the email's fields and then for its entry stays one visit.
- **Back and forth** is three steps in a row A, B, A: the walk left A for B, then came back
  to A. A reader following the job has to hold A open while reading B, then return to it.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from types import FrameType
from typing import Any

from test_exactly_once import make
from test_process_job import body

from fakes import FakeClock, FakeNotifier, FakeResultStore
from nrf.domain.jobs import JobStatus, NotificationKind, QueueMessage

SERVICE_LAYER = "nrf.service_layer."


def walk_of(work: Callable[[], Any], prefix: str = SERVICE_LAYER) -> tuple[Any, list[str]]:
    """Run ``work``; its result and the modules under ``prefix`` it stepped into, in order."""
    steps: list[str] = []

    def on_event(frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or frame.f_code.co_name == "<module>":
            return  # only function calls (C calls are "c_call"); an import is not a step
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(prefix):
            return
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        name = module.removeprefix(prefix)
        if caller != module and (not steps or steps[-1] != name):
            steps.append(name)

    before = sys.getprofile()
    sys.setprofile(on_event)
    try:
        result = work()
    finally:
        sys.setprofile(before)
    return result, steps


def back_and_forth(steps: list[str]) -> list[tuple[str, str, str]]:
    """Every A, B, A of three steps in a row."""
    return [
        (a, b, again)
        for a, b, again in zip(steps, steps[1:], steps[2:], strict=False)
        if a == again
    ]


PLANNER = "planner@example.gov.uk"  # test_process_job's body()


def test_one_successful_job_never_goes_back_and_forth() -> None:
    store, notifier = FakeResultStore(), FakeNotifier()
    receive = make(store, notifier, FakeClock())  # built outside the walk: only the job is traced
    message = QueueMessage(message_id="m-1", receipt_handle="r-1", body=body())

    outcome, steps = walk_of(lambda: receive(message))

    # A job that succeeded and told its requester: the walk is the one under test.
    assert (outcome.status, outcome.delete) == ("succeeded", True)
    assert store.records["job-1"].status is JobStatus.SUCCEEDED
    kinds = [n.kind for n in notifier.sent]
    assert kinds == [NotificationKind.STARTED, NotificationKind.COMPLETED]
    assert back_and_forth(steps) == [], f"walk: {' -> '.join(steps)}"
    # By hand, from the code: the worker hands the job to ProcessJob (process_job.py), which
    # has notifications.py make the started and completed emails' fields and entries and
    # send them (the ledger), then asks job_outcome.py whether the message may go
    # (OutcomeDecider.end). Three files, each entered once.
    assert steps == ["process_job", "notifications", "job_outcome"]


def test_the_receive_that_finishes_a_pending_email_never_goes_back_and_forth() -> None:
    # The first receive stored the result, but the provider was down for the requester's
    # email (retryable): the entry stays pending and the message is kept.
    store = FakeResultStore()
    down = FakeNotifier(frozenset({PLANNER}), retryable=True)
    message = QueueMessage(message_id="m-1", receipt_handle="r-1", body=body())
    first = make(store, down, FakeClock())(message)
    assert (first.status, first.delete) == ("retry", False)
    assert store.records["job-1"].has_pending()

    # The message comes back (another receive, the provider up again).
    notifier = FakeNotifier()
    receive = make(store, notifier, FakeClock())
    again = QueueMessage(message_id="m-1", receipt_handle="r-2", body=body(), receive_count=2)
    outcome, steps = walk_of(lambda: receive(again))

    assert (outcome.status, outcome.delete) == ("already_finished", True)
    assert [n.kind for n in notifier.sent] == [NotificationKind.COMPLETED]
    assert back_and_forth(steps) == [], f"walk: {' -> '.join(steps)}"
    # By hand: ProcessJob finds the record (process_job.py); notifications.py makes the
    # email's fields and settles the pending entry (asking the provider first); job_outcome.py
    # deletes the message now nothing is pending.
    assert steps == ["process_job", "notifications", "job_outcome"]


def _plant(name: str, source: str, into: dict[str, Any]) -> None:
    """Define ``source``'s functions as if they lived in module ``name``; ``ns`` finds the rest."""
    scope: dict[str, Any] = {"__name__": name, "ns": into}
    exec(textwrap.dedent(source), scope)
    into.update({key: value for key, value in scope.items() if callable(value)})


def test_the_walk_counts_steps_and_finds_a_return_to_the_module_just_left() -> None:
    ns: dict[str, Any] = {}
    _plant(
        "plant.a",
        """
        def start():
            return helper()

        def helper():
            return ns["ask"]()

        def callback():
            return ns["end"]()
        """,
        ns,
    )
    _plant(
        "plant.b",
        """
        def ask():
            return more()

        def more():
            return ns["callback"]()
        """,
        ns,
    )
    _plant("plant.c", "def end():\n    return 7\n", ns)

    result, steps = walk_of(ns["start"], prefix="plant.")

    # start (a) -> helper (a: no step) -> ask (b) -> more (b: no step) -> callback (a again)
    # -> end (c): the steps are a, b, a, c, and a, b, a is back and forth.
    assert (result, steps) == (7, ["a", "b", "a", "c"])
    assert back_and_forth(steps) == [("a", "b", "a")]


def test_a_walk_that_moves_on_is_not_back_and_forth() -> None:
    assert back_and_forth(["a", "b", "c", "d"]) == []
    # Coming back later, after another module, is not "in a row": a, b, c, a passes.
    assert back_and_forth(["a", "b", "c", "a"]) == []
    assert back_and_forth(["a", "b", "c", "b"]) == [("b", "c", "b")]
