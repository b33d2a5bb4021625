"""The body-deadline watchdog: actions run once due, cancelled ones never, in deadline order."""

from __future__ import annotations

import threading

from nrf.entrypoints.api.watchdog import Watchdog


def test_due_actions_run_in_deadline_order_and_cancelled_ones_do_not() -> None:
    watchdog = Watchdog()
    ran: list[str] = []
    last = threading.Event()

    def record(name: str) -> None:
        ran.append(name)
        if name == "late":
            last.set()

    cancel_early = watchdog.watch(0.01, lambda: record("cancelled"))
    watchdog.watch(0.3, lambda: record("late"))
    watchdog.watch(0.05, lambda: record("early"))
    cancel_early()
    # "late" is due last: once it has run, anything due earlier has had its turn.
    assert last.wait(30)
    assert ran == ["early", "late"]


def test_an_action_registered_after_a_long_one_is_not_held_up_by_it() -> None:
    watchdog = Watchdog()
    done = threading.Event()
    watchdog.watch(3600, lambda: None)
    watchdog.watch(0.01, done.set)
    assert done.wait(30)
