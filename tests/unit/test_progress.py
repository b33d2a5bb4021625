"""Stage progress: quiet for quick stages, then %, rate and ETA; driven by a fake clock."""

from __future__ import annotations

import io

from nrf.adapters.terminal.progress import StageProgress, clock_time, status_line


class FakeClock:
    """Reads the time the test sets."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_quick_stage_prints_nothing() -> None:
    stream, clock = io.StringIO(), FakeClock()
    stage = StageProgress(stream=stream, clock=clock).stage("assessing", "sites")
    for done in range(1, 4):
        clock.now += 0.2  # 3 sites in 0.6 s: under the one-second threshold
        stage(done, 3)
    assert stream.getvalue() == ""


def test_a_slow_stage_prints_a_line_per_tenth_with_rate_and_eta() -> None:
    stream, clock = io.StringIO(), FakeClock()
    stage = StageProgress(stream=stream, clock=clock).stage("assessing", "sites")
    for done in range(1, 101):
        clock.now += 0.5  # 2 sites a second
        stage(done, 100)
    lines = stream.getvalue().splitlines()
    # Quiet until a second has passed (site 2, at 101.0), then one line per tenth: 2 % and
    # 10 %, 20 %, ... 100 %, so 1 + 10 = 11 lines.
    assert len(lines) == 11
    # After 2 sites in 1.0 s: 2.0 %, 2 sites/s, 98 left at 2 a second -> 49 s -> 0:49.
    assert lines[0] == "assessing 2/100 sites    2.0 %  2 sites/s  ETA 0:49"
    # Site 50 at 100 + 50 x 0.5 = 125.0: 49 sites since site 1 (100.5) in 24.5 s = 2 a second;
    # 50 left at 2 a second -> 25 s -> 0:25.
    assert lines[5] == "assessing 50/100 sites   50.0 %  2 sites/s  ETA 0:25"
    # Site 100 at 150.0: the stage took 150.0 - 100.0 = 50 s -> 0:50.
    assert lines[-1] == "assessing 100/100 sites  100.0 %  2 sites/s  done in 0:50"


def test_a_terminal_gets_one_line_rewritten_in_place() -> None:
    stream, clock = io.StringIO(), FakeClock()
    stage = StageProgress(stream=stream, clock=clock, tty=True).stage("reading", "features")
    for done in range(1, 11):
        clock.now += 1.0
        stage(done, 10)
    text = stream.getvalue()
    # 10 features, 1 s apart from the stage's start: 10 s -> 0:10.
    assert text.count("\r") == 10 and text.endswith("done in 0:10    \n")
    assert text.count("\n") == 1


def test_status_line_and_clock_time() -> None:
    assert status_line("writing", "sites", 0, 10, 0.0) == "writing 0/10 sites    0.0 %"
    assert status_line("writing", "sites", 4, 10, 9.0, 2.0) == (
        "writing 4/10 sites   40.0 %  2 sites/s  ETA 0:03"  # 6 left at 2 a second
    )
    # 3723 s = 1 h + 2 min (120 s) + 3 s; 65 s = 1 min + 5 s.
    assert clock_time(3723) == "1:02:03" and clock_time(65) == "1:05" and clock_time(9) == "0:09"


def test_rate_and_eta_count_from_the_first_item_not_the_stages_setup() -> None:
    stream, clock = io.StringIO(), FakeClock()
    stage = StageProgress(stream=stream, clock=clock).stage("writing", "sites")
    clock.now += 30.0  # gathering the results before the first site is written
    for done in range(1, 11):
        clock.now += 0.5
        stage(done, 10)
    lines = stream.getvalue().splitlines()
    # The first report (site 1, at 30.5 s) has no pace yet: no rate, no absurd ETA.
    assert lines[0] == "writing 1/10 sites   10.0 %"
    # Site 2 came 0.5 s after site 1: 2 a second; 8 left -> 4 s.
    assert lines[1] == "writing 2/10 sites   20.0 %  2 sites/s  ETA 0:04"
    # The stage as a whole: 10 sites in 35 s -> 0.29 a second, shown rounded to 0.
    assert lines[-1] == "writing 10/10 sites  100.0 %  0 sites/s  done in 0:35"
