"""bounded_read: a read runs in a forked child, under a deadline and a memory ceiling.

Each test forks a real child; the deadlines here are tenths of a second against children that
would sleep for a minute, so a refusal is never a matter of the machine being fast enough.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from nrf.adapters.site_boundaries import bounded_read
from nrf.adapters.site_boundaries.bounded_read import bounded_call, bounded_items
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import DEFAULT_LIMITS, MIB

# A deadline short enough to meet in a test: only for the tests of the deadline itself (and of
# the CPU limit it arms). Every other test reads with a deadline no loaded machine meets, so a
# fork that is slow to be scheduled cannot turn an expected answer into read_timed_out.
QUICK = attrs.evolve(DEFAULT_LIMITS, max_read_seconds=0.3)
ROOMY = attrs.evolve(DEFAULT_LIMITS, max_read_seconds=120)
# Long enough for a first item on a loaded machine, short enough to wait out in a test.
PATIENT = attrs.evolve(DEFAULT_LIMITS, max_read_seconds=5)
SMALL = attrs.evolve(DEFAULT_LIMITS, max_read_memory_bytes=64 * MIB)


def refused(read: object) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        read()  # type: ignore[operator]
    return caught.value


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_call_runs_in_a_child_and_its_answer_comes_back() -> None:
    pid, value = bounded_call(lambda x: (os.getpid(), [x, {"a": b"\x00wkb"}]), 7, limits=ROOMY)
    assert pid != os.getpid()
    assert value == [7, {"a": b"\x00wkb"}]
    assert gone(pid), "the child is reaped once it has answered"


def test_a_read_past_the_deadline_is_read_timed_out_and_the_child_is_killed(
    tmp_path: Path,
) -> None:
    said = tmp_path / "pid"

    def stuck() -> None:
        said.write_text(str(os.getpid()))
        time.sleep(60)

    error = refused(lambda: bounded_call(stuck, limits=QUICK))
    assert error.codes == ["read_timed_out"]
    assert "0.3 s" in error.message
    assert gone(int(said.read_text())), "the child was killed and reaped, not left sleeping"


def test_an_allocation_past_the_ceiling_is_read_too_large() -> None:
    # 256 MiB asked for, 64 MiB allowed beyond the child's size at the fork.
    error = refused(lambda: bounded_call(lambda: len(bytearray(256 * MIB)), limits=SMALL))
    assert error.codes == ["read_too_large"]
    assert "64 MiB" in error.message


def test_the_same_allocation_within_the_ceiling_is_allowed() -> None:
    # The default ceiling is 512 MiB: the 256 MiB that was refused above is allowed here, so
    # the refusal was the ceiling's, not the machine's.
    assert bounded_call(lambda: len(bytearray(256 * MIB)), limits=DEFAULT_LIMITS) == 256 * MIB


def test_the_child_has_its_cpu_limited_to_the_deadline() -> None:
    # A backstop should the parent die: CPU used so far (~0.0 s in a fresh child) plus the
    # 120 s deadline, rounded down, plus 1: int(0.0 + 120) + 1 = 121 seconds.
    soft, _ = bounded_call(lambda: resource.getrlimit(resource.RLIMIT_CPU), limits=ROOMY)
    assert soft == 121


def _burn_past_a_cpu_limit_of_one_second() -> None:
    """Spin past a CPU limit one second from now: a read that outlives its backstop."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would dump a core
    used = resource.getrusage(resource.RUSAGE_SELF)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (int(used.ru_utime + used.ru_stime) + 1, hard))
    while True:
        pass


def test_a_child_stopped_by_its_cpu_limit_is_read_timed_out() -> None:
    # The parent's own deadline is a minute here, so it is the kernel's SIGXCPU that ends
    # the child; the parent must still say read_timed_out, not unreadable_file.
    patient = attrs.evolve(DEFAULT_LIMITS, max_read_seconds=60)
    error = refused(lambda: bounded_call(_burn_past_a_cpu_limit_of_one_second, limits=patient))
    assert error.codes == ["read_timed_out"]


def test_the_childs_input_error_arrives_with_every_problem() -> None:
    problems = [
        Problem(code="unreadable_file", message="damaged"),
        Problem(code="too_many_vertices", message="many", feature=3, field="geometry"),
    ]

    def refuse() -> None:
        raise InvalidInput(problems)

    assert refused(lambda: bounded_call(refuse, limits=ROOMY)).problems == tuple(problems)


def test_any_other_error_is_raised_as_it_was() -> None:
    def fail() -> None:
        raise ValueError("not an input error")

    with pytest.raises(ValueError, match="not an input error"):
        bounded_call(fail, limits=ROOMY)


def test_a_child_that_dies_without_answering_is_an_unreadable_file() -> None:
    # As a crash in GDAL would end it (SIGKILL: no faulthandler noise in the test's output).
    error = refused(
        lambda: bounded_call(lambda: os.kill(os.getpid(), signal.SIGKILL), limits=ROOMY)
    )
    assert error.codes == ["unreadable_file"]
    assert "exit -9" in error.message


def test_items_stream_in_order_from_one_child() -> None:
    def pages() -> Iterator[int]:
        for page in range(3):
            yield os.getpid() * 10 + page

    got = list(bounded_items(pages, limits=ROOMY))
    pid = got[0] // 10
    assert pid != os.getpid()
    assert got == [pid * 10, pid * 10 + 1, pid * 10 + 2]


def test_the_deadline_applies_to_each_item() -> None:
    def stalls() -> Iterator[str]:
        yield "first page"
        time.sleep(60)
        yield "never"

    received = []
    with pytest.raises(InvalidInput) as caught:
        for item in bounded_items(stalls, limits=PATIENT):
            received.append(item)
    assert received == ["first page"]
    assert caught.value.codes == ["read_timed_out"]


def test_a_consumer_that_stops_early_ends_the_child(tmp_path: Path) -> None:
    said = tmp_path / "pid"

    def endless() -> Iterator[int]:
        said.write_text(str(os.getpid()))
        while True:
            yield 1

    items = bounded_items(endless, limits=ROOMY)
    assert next(items) == 1
    items.close()  # type: ignore[attr-defined]
    assert gone(int(said.read_text()))


def test_without_fork_the_read_runs_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounded_read, "_FORKS", False)  # as on Windows
    assert bounded_call(os.getpid, limits=ROOMY) == os.getpid()
    assert list(bounded_items(lambda: iter([1, 2]), limits=ROOMY)) == [1, 2]


def test_the_childs_log_records_are_written_by_the_parent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def logs_then_refuses() -> None:
        logging.getLogger("nrf.boundary").info("boundary_unreadable", extra={"detail": "gdal"})
        raise InvalidInput([Problem(code="unreadable_file", message="damaged")])

    with caplog.at_level(logging.INFO, logger="nrf.boundary"):
        refused(lambda: bounded_call(logs_then_refuses, limits=ROOMY))
    [record] = [r for r in caplog.records if r.name == "nrf.boundary"]
    assert (record.getMessage(), record.detail) == ("boundary_unreadable", "gdal")  # type: ignore[attr-defined]
    assert record.process != os.getpid(), "logged in the child, written by the parent"


def _cpu_limit_after_an_item() -> Iterator[int]:
    """Move the CPU limit far off before the first item; after it, report the limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    far = 1_000_000 if hard == resource.RLIM_INFINITY else hard
    resource.setrlimit(resource.RLIMIT_CPU, (far, hard))
    yield far
    yield resource.getrlimit(resource.RLIMIT_CPU)[0]


def test_the_cpu_limit_is_armed_again_after_each_streamed_item() -> None:
    # Each item gets the deadline afresh: CPU used so far (well under a second in the
    # child) plus 120 s, rounded down, plus 1 = 121 seconds; left unarmed the limit would stay
    # where the stream put it (1,000,000 s), and a long stream's later items would meet a
    # limit armed only once, at the start: large streamed files refused as timed out.
    far, after = bounded_items(_cpu_limit_after_an_item, limits=ROOMY)
    assert far > 121 and after == 121


def _unable_to_say_it_ran_out_of_memory() -> None:
    """Run out of memory with the answer pipe gone, as when even the answer cannot be sent."""
    os.closerange(3, 65536)
    raise MemoryError


def test_a_child_that_runs_out_of_memory_without_answering_is_read_too_large() -> None:
    # The child exits 3 (_OUT_OF_MEMORY) when it could not send "memory": the parent sees the
    # pipe close and must still say read_too_large, not unreadable_file.
    error = refused(lambda: bounded_call(_unable_to_say_it_ran_out_of_memory, limits=ROOMY))
    assert error.codes == ["read_too_large"]
