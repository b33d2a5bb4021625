"""ForkedSiteMap: map's results in map's order, really in other processes; failures surface."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from nrf.adapters.site_map.forked_site_map import ChildFailed, ForkedSiteMap, blocks


def idle(processes: int, **options: int) -> ForkedSiteMap:
    """A map that sees a machine with CPUs to spare (the default reads the load average)."""
    return ForkedSiteMap(processes, spare_cpus=lambda: 64.0, **options)


def square(x: int) -> int:
    return x * x


@pytest.mark.parametrize("count", [0, 1, 15, 16, 17, 33, 100, 245])
@pytest.mark.parametrize("processes", [1, 2, 3])
def test_results_are_maps_results_in_order(count: int, processes: int) -> None:
    items = list(range(count))
    assert list(ForkedSiteMap(processes)(square, items)) == [x * x for x in items]


def test_blocks_cover_every_index_once_in_order() -> None:
    assert blocks(10, 4) == [range(0, 4), range(4, 8), range(8, 10)]
    assert [i for b in blocks(245, 7) for i in b] == list(range(245))


def test_a_big_batch_runs_in_as_many_processes_as_asked() -> None:
    pids = list(idle(3)(lambda _: os.getpid(), list(range(96))))
    assert len(set(pids)) == 3 and os.getpid() in pids


def test_a_small_batch_stays_in_the_calling_process() -> None:
    pids = set(idle(4, min_items=16)(lambda _: os.getpid(), list(range(15))))
    assert pids == {os.getpid()}


def test_a_childs_exception_is_raised_in_the_caller() -> None:
    def fail_on_last(x: int) -> int:
        if x == 63:  # the last block belongs to a child with 2 processes and 64 items
            raise ValueError(f"bad item {x}")
        return x

    with pytest.raises(ValueError, match="bad item 63"):
        list(idle(2)(fail_on_last, list(range(64))))


def test_an_exception_that_cannot_travel_still_says_what_happened() -> None:
    class Local(Exception):  # defined in a function: pickle cannot find it by name
        pass

    def fail(x: int) -> int:
        if x == 63:
            raise Local("cannot be pickled")
        return x

    with pytest.raises(ChildFailed, match="Local: cannot be pickled"):
        list(idle(2)(fail, list(range(64))))


def test_a_child_that_dies_is_reported_not_waited_for() -> None:
    def die(x: int) -> int:
        if x == 63:
            os._exit(7)
        return x

    with pytest.raises(ChildFailed, match="exit code 7"):
        list(idle(2)(die, list(range(64))))


def test_stopping_early_leaves_no_child_behind() -> None:
    results = idle(2)(square, list(range(200)))
    assert next(results) == 0
    results.close()  # type: ignore[attr-defined]
    assert multiprocessing.active_children() == []


def test_text_buffered_before_the_fork_is_printed_once() -> None:
    script = textwrap.dedent(
        """
        import sys
        from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
        print("before", end="")  # stdout is a pipe here, so this sits in the buffer
        site_map = ForkedSiteMap(2, spare_cpus=lambda: 64.0)
        assert list(site_map(abs, list(range(64)))) == list(range(64))
        print(" after")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "before after\n"


def test_zero_processes_is_refused() -> None:
    with pytest.raises(ValueError):
        ForkedSiteMap(0)


@pytest.mark.parametrize(
    ("spare", "expected"),
    [(64.0, 3), (2.0, 3), (1.0, 2), (0.8, 2), (0.5, 1), (0.0, 1), (-3.0, 1)],
)
def test_only_spare_cpus_get_a_process(spare: float, expected: int) -> None:
    # 3 asked; the caller's own CPU is always used, plus one per spare CPU (0.75 counts).
    site_map = ForkedSiteMap(3, spare_cpus=lambda: spare)
    pids = list(site_map(lambda _: os.getpid(), list(range(96))))
    assert len(set(pids)) == expected and os.getpid() in pids


class CountingItems:
    """A lazy source of items that records the most handed out but not yet answered."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.produced = 0
        self.answered = 0
        self.most_in_flight = 0

    def __iter__(self) -> Iterator[int]:
        for item in range(self.count):
            self.produced += 1
            self.most_in_flight = max(self.most_in_flight, self.produced - self.answered)
            yield item


@pytest.mark.parametrize("processes", [1, 2])
def test_a_long_stream_is_taken_a_window_at_a_time(processes: int) -> None:
    # 1,000 items through windows of 64: never more than 64 handed out and unanswered,
    # and every result, in order (a whole-list map would have 1,000 out at once).
    source = CountingItems(1000)
    results = []
    for result in idle(processes, window=64)(square, source):
        source.answered += 1
        results.append(result)
    assert results == [x * x for x in range(1000)]
    assert source.produced == 1000
    assert source.most_in_flight == 64


def test_a_stream_still_forks_within_each_window() -> None:
    # 4 windows of 64, each forks its own child: the caller and 4 children did the work.
    pids = list(idle(2, window=64)(lambda _: os.getpid(), iter(range(256))))
    assert len(pids) == 256 and os.getpid() in pids and len(set(pids)) == 5
