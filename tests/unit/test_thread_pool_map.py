"""ThreadPoolMap: input order kept, work really spread over threads, one thread means inline."""

from __future__ import annotations

import threading

import pytest

from nrf.adapters.thread_pool_map import ThreadPoolMap


def test_results_keep_the_input_order_even_when_early_items_finish_last() -> None:
    release = threading.Event()

    def slow_first(x: int) -> int:
        if x == 0:
            release.wait(5)
        else:
            release.set()
        return x * 10

    assert list(ThreadPoolMap(2)(slow_first, [0, 1, 2, 3])) == [0, 10, 20, 30]


def test_two_threads_run_two_items_at_once() -> None:
    # Each item waits for the other: only two threads at once get past the barrier.
    barrier = threading.Barrier(2, timeout=5)

    def meet(x: int) -> str:
        barrier.wait()
        return threading.current_thread().name

    names = list(ThreadPoolMap(2)(meet, [1, 2]))
    assert len(set(names)) == 2 and all(n.startswith("nrf-site") for n in names)


def test_one_thread_or_one_item_runs_in_the_callers_thread() -> None:
    def where(_: int) -> str:
        return threading.current_thread().name

    here = threading.current_thread().name
    assert list(ThreadPoolMap(1)(where, [1, 2, 3])) == [here] * 3
    assert list(ThreadPoolMap(4)(where, [1])) == [here]


def test_an_error_in_one_item_reaches_the_caller() -> None:
    def fail_on_two(x: int) -> int:
        if x == 2:
            raise ValueError("two")
        return x

    with pytest.raises(ValueError, match="two"):
        list(ThreadPoolMap(2)(fail_on_two, [1, 2, 3]))


def test_zero_threads_is_refused() -> None:
    with pytest.raises(ValueError):
        ThreadPoolMap(0)
