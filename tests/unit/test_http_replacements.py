"""One replacement at a time across gunicorn's processes (real forks sharing the state)."""

from __future__ import annotations

import multiprocessing

from nrf.adapters.http_server.replacements import Replacements


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_second_process_waits_until_the_first_ones_replacement_is_ready() -> None:
    clock = Clock()
    replacements = Replacements(stale_seconds=120.0, clock=clock)
    assert replacements.begin()  # the first due process goes
    assert not replacements.begin()  # its sibling, due too, keeps serving
    replacements.ready()  # the replacement has loaded its app
    assert replacements.begin()


def test_a_replacement_that_never_became_ready_holds_nobody_back_after_stale_seconds() -> None:
    clock = Clock()
    replacements = Replacements(stale_seconds=120.0, clock=clock)
    assert replacements.begin()
    clock.now += 119.0
    assert not replacements.begin()
    clock.now += 1.0
    assert replacements.begin()


def _begin(replacements: Replacements, answers: multiprocessing.SimpleQueue[bool]) -> None:
    answers.put(replacements.begin())


def test_forked_processes_share_the_state() -> None:
    replacements = Replacements(stale_seconds=120.0)  # made before the fork, as in the arbiter
    context = multiprocessing.get_context("fork")
    answers: multiprocessing.SimpleQueue[bool] = context.SimpleQueue()
    for _ in range(3):
        child = context.Process(target=_begin, args=(replacements, answers))
        child.start()
        child.join()
    assert [answers.get() for _ in range(3)] == [True, False, False]
    replacements.ready()
    assert replacements.begin()
