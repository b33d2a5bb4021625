"""One job of each ending walks service_layer entering each module once (issues 18 and 29).

The walk is traced with ``sys.setprofile`` (``sys.monitoring`` is 3.12+) while one job runs
through the container's own wiring (support/receives.py: read, claim, the use case, release),
with recording fakes for the ports and the real assessment.

Definitions, precisely:

- A **step** is entering a service_layer module: a Python function of that module called
  from code of any other module (the worker, the domain, another service_layer module). A
  call from a module into itself is not a step: the reader never leaves the file. Building a
  record (an attrs-generated ``__init__``) is not a step either: a value is not code to read.
- **Returns count.** Once a call into B has returned, the next call into B is a second step
  into B, however soon it comes: ``ProcessJob`` asking ``notifications.py`` for an email's
  fields, getting them back, then asking it for the entry, has entered it twice (the walk
  of issue 18 merged the two). A module that hands on to several others in turn (``JobEnd``:
  the ledger, then the decider) enters each once.
- **Each module entered once**: no module is a step twice. A reader follows the job forward
  through each file once and never holds one open to come back to it.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from test_defra_quote_job import EXCLUDED, Job, message
from test_drain_dead_letters import body as dead_body
from test_drain_dead_letters import drain_of
from test_exactly_once import make
from test_process_job import body

from fakes import FakeClock, FakeJobQueue, FakeNotifier, FakeResultStore
from nrf.domain.jobs import JobStatus, NotificationKind, QueueMessage
from support.defra_sites import run_of, site

SERVICE_LAYER = "nrf.service_layer."
ATTRS_MADE = "<attrs generated"


def walk_of(work: Callable[[], Any], prefix: str = SERVICE_LAYER) -> tuple[Any, list[str]]:
    """Run ``work``; its result and the modules under ``prefix`` it stepped into, in order."""
    steps: list[str] = []

    def on_event(frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if event != "call" or code.co_name == "<module>":
            return  # only function calls (C calls are "c_call"); an import is not a step
        if code.co_filename.startswith(ATTRS_MADE):
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(prefix):
            return
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        if caller != module:
            steps.append(module.removeprefix(prefix))

    before = sys.getprofile()
    sys.setprofile(on_event)
    try:
        result = work()
    finally:
        sys.setprofile(before)
    return result, steps


def entered_twice(steps: list[str]) -> list[str]:
    """Every module the walk stepped into more than once."""
    return sorted({step for step in steps if steps.count(step) > 1})


PLANNER = "planner@example.gov.uk"  # test_process_job's body()
SEAM = ["job_end", "notifications", "job_outcome"]


def _message(text: str, count: int) -> QueueMessage:
    return QueueMessage(
        message_id="m-1", receipt_handle=f"r-{count}", body=text, receive_count=count
    )


def success() -> tuple[Any, list[str], list[NotificationKind]]:
    # The second receive of a job whose first died before storing anything: no "started"
    # email (that goes at the very first claim only; see the test below).
    store, notifier = FakeResultStore(), FakeNotifier()
    receive = make(store, notifier, FakeClock())  # built outside the walk: only the job is traced
    outcome, steps = walk_of(lambda: receive(_message(body(), 2)))
    assert store.records["job-1"].status is JobStatus.SUCCEEDED
    return outcome, steps, [n.kind for n in notifier.sent]


def failure() -> tuple[Any, list[str], list[NotificationKind]]:
    # A message that is not a job at all: failed for good, the requester told.
    store, notifier = FakeResultStore(), FakeNotifier()
    receive = make(store, notifier, FakeClock())
    outcome, steps = walk_of(lambda: receive(_message(body(development={}), 1)))
    assert store.records["job-1"].status is JobStatus.FAILED
    return outcome, steps, [n.kind for n in notifier.sent]


def timeout() -> tuple[Any, list[str], list[NotificationKind]]:
    # A job the worker killed at its deadline: FailJob, in the worker process.
    store, notifier = FakeResultStore(), FakeNotifier()
    receive = make(store, notifier, FakeClock())
    outcome, steps = walk_of(lambda: receive.timed_out(_message(body(), 2), 901.5))
    return outcome, steps, [n.kind for n in notifier.sent]


def refusal() -> tuple[Any, list[str], list[NotificationKind]]:
    # A Defra quote in an excluded area: no levy, so failed at once and support told
    # (its second receive, so no "started" email).
    job = Job(run_of(site(refusal=EXCLUDED)))
    outcome, steps = walk_of(lambda: job.receive(_message(message(), 2)))
    return outcome, steps, [n.kind for n in job.notifier.sent]


def dead_letter() -> tuple[Any, list[str], list[NotificationKind]]:
    # `nrf dlq` meets a job that never finished: failed, support and the requester told.
    clock = FakeClock()
    dlq, store, notifier = FakeJobQueue(clock), FakeResultStore(), FakeNotifier()
    drain = drain_of(dlq, store, notifier, clock)
    dlq.send(dead_body("dead-1"))
    handled, steps = walk_of(drain)
    assert (handled, dlq.messages) == (["dead-1"], {})
    return handled, steps, [n.kind for n in notifier.sent]


def already_finished() -> tuple[Any, list[str], list[NotificationKind]]:
    # The message of a stored and told job comes back (its delete was lost).
    store, notifier = FakeResultStore(), FakeNotifier()
    make(store, notifier, FakeClock())(_message(body(), 1))
    again, told = make(store, FakeNotifier(), FakeClock()), len(notifier.sent)
    outcome, steps = walk_of(lambda: again(_message(body(), 2)))
    assert len(notifier.sent) == told
    return outcome, steps, []


ENDINGS = {
    # ending: (the job, its outcome's status, what it told, its walk by hand from the code)
    "success": (success, "succeeded", [NotificationKind.COMPLETED], ["process_job", *SEAM]),
    "failure": (failure, "failed", [NotificationKind.FAILED], ["process_job", *SEAM]),
    "timeout": (timeout, "failed", [NotificationKind.FAILED], ["fail_job", *SEAM]),
    "refusal": (
        refusal,
        "failed",
        [NotificationKind.FAILED, NotificationKind.QUOTE_REFUSED],
        ["process_job", *SEAM],
    ),
    "dead letter": (
        dead_letter,
        None,
        [NotificationKind.DEAD_LETTERED, NotificationKind.FAILED],
        ["drain_dead_letters", *SEAM],
    ),
    "already finished": (already_finished, "already_finished", [], ["process_job", *SEAM]),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_each_ending_enters_each_module_once(ending: str) -> None:
    job, status, told, by_hand = ENDINGS[ending]
    outcome, steps, sent = job()

    # The job ended as the ending says, and told whom it should: the walk is the one under test.
    if status is not None:
        assert (outcome.status, outcome.delete) == (status, True)
    assert sorted(sent) == sorted(told)
    assert entered_twice(steps) == [], f"walk: {' -> '.join(steps)}"
    # By hand: the use case does the job's own work and hands its ending to JobEnd
    # (job_end.py), which has the ledger (notifications.py) make, store and send the
    # entries, then asks job_outcome.py whether the message may go.
    assert steps == by_hand


def test_the_first_receive_enters_each_module_once_with_the_started_email() -> None:
    # The "started" email goes at the very first claim, before the assessment: it cannot
    # wait for the ending, and has no entry in the ledger, so it is started_email.py's
    # (notifications.py is entered once, by JobEnd).
    store, notifier = FakeResultStore(), FakeNotifier()
    receive = make(store, notifier, FakeClock())
    outcome, steps = walk_of(lambda: receive(_message(body(), 1)))

    assert (outcome.status, outcome.delete) == ("succeeded", True)
    assert [n.kind for n in notifier.sent] == [NotificationKind.STARTED, NotificationKind.COMPLETED]
    assert entered_twice(steps) == [], f"walk: {' -> '.join(steps)}"
    assert steps == ["process_job", "started_email", *SEAM]


def test_the_receive_that_finishes_a_pending_email_enters_each_module_once() -> None:
    # The first receive stored the result, but the provider was down for the requester's
    # email (retryable): the entry stays pending and the message is kept.
    store = FakeResultStore()
    down = FakeNotifier(frozenset({PLANNER}), retryable=True)
    first = make(store, down, FakeClock())(_message(body(), 1))
    assert (first.status, first.delete) == ("retry", False)
    assert store.records["job-1"].has_pending()

    # The message comes back (another receive, the provider up again).
    notifier = FakeNotifier()
    receive = make(store, notifier, FakeClock())
    outcome, steps = walk_of(lambda: receive(_message(body(), 2)))

    assert (outcome.status, outcome.delete) == ("already_finished", True)
    assert [n.kind for n in notifier.sent] == [NotificationKind.COMPLETED]
    # By hand: ProcessJob finds the record and hands it to JobEnd; the ledger settles the
    # pending entry (asking the provider first); job_outcome.py deletes the message.
    assert steps == ["process_job", *SEAM]


def _plant(name: str, source: str, into: dict[str, Any]) -> None:
    """Define ``source``'s functions as if they lived in module ``name``; ``ns`` finds the rest."""
    scope: dict[str, Any] = {"__name__": name, "ns": into}
    exec(textwrap.dedent(source), scope)
    into.update({key: value for key, value in scope.items() if callable(value)})


def test_the_walk_counts_a_return_and_a_second_call_as_a_second_step() -> None:
    ns: dict[str, Any] = {}
    _plant(
        "plant.a",
        """
        def start():
            first = ns["ask"]()
            return helper(first)

        def helper(first):
            return ns["ask"]() + first + ns["end"]()
        """,
        ns,
    )
    _plant("plant.b", "def ask():\n    return more()\n\ndef more():\n    return 1\n", ns)
    _plant("plant.c", "def end():\n    return 5\n", ns)

    result, steps = walk_of(ns["start"], prefix="plant.")

    # start (a) -> ask (b; more is b's own: no step) -> back in a, helper (a's own) -> ask
    # (b again: a second step, though nothing came between) -> end (c).
    assert (result, steps) == (7, ["a", "b", "b", "c"])
    assert entered_twice(steps) == ["b"]


def test_a_module_that_hands_on_in_turn_enters_each_once() -> None:
    ns: dict[str, Any] = {}
    _plant("plant.hub", "def run():\n    return ns['settle']() + ns['decide']()\n", ns)
    _plant("plant.ledger", "def settle():\n    return 1\n", ns)
    _plant("plant.decider", "def decide():\n    return 2\n", ns)

    result, steps = walk_of(ns["run"], prefix="plant.")

    assert (result, steps) == (3, ["hub", "ledger", "decider"])
    assert entered_twice(steps) == []
