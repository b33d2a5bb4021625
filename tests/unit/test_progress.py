"""Stage progress: quiet for quick stages, then %, rate and ETA; driven by a fake clock."""

from __future__ import annotations

import io

from nrf.entrypoints.progress import StageProgress, clock_time, status_line


class FakeClock:
    """Reads the time the test sets."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_quick_stage_prints_nothing() -> None:
    stream, clock = io.StringIO(), FakeClock()
    stage = StageProgress(stream, clock).stage("assessing", "sites")
    for done in range(1, 4):
        clock.now += 0.2  # 3 sites in 0.6 s: under the one-second threshold
        stage(done, 3)
    assert stream.getvalue() == ""


def test_a_slow_stage_prints_a_line_per_tenth_with_rate_and_eta() -> None:
    stream, clock = io.StringIO(), FakeClock()
    stage = StageProgress(stream, clock).stage("assessing", "sites")
    for done in range(1, 101):
        clock.now += 0.5  # 2 sites a second
        stage(done, 100)
    lines = stream.getvalue().splitlines()
    # Quiet until a second has passed (site 2), then one line per tenth: 0 %, 10 %, ... 100 %.
    assert len(lines) == 11
    # After 2 sites in 1.0 s: 2.0 %, 2 sites/s, 98 left at 2 a second -> 49 s -> 0:49.
    assert lines[0] == "assessing 2/100 sites    2.0 %  2 sites/s  ETA 0:49"
    assert lines[5] == "assessing 50/100 sites   50.0 %  2 sites/s  ETA 0:25"
    assert lines[-1] == "assessing 100/100 sites  100.0 %  2 sites/s  done in 0:50"


def test_a_terminal_gets_one_line_rewritten_in_place() -> None:
    stream, clock = io.StringIO(), FakeClock()
    stage = StageProgress(stream, clock, tty=True).stage("reading", "features")
    for done in range(1, 11):
        clock.now += 1.0
        stage(done, 10)
    text = stream.getvalue()
    assert text.count("\r") == 10 and text.endswith("done in 0:10    \n")
    assert text.count("\n") == 1


def test_status_line_and_clock_time() -> None:
    assert status_line("writing", "sites", 0, 10, 0.0) == "writing 0/10 sites    0.0 %  0 sites/s"
    assert clock_time(3723) == "1:02:03" and clock_time(65) == "1:05" and clock_time(9) == "0:09"
