"""Progress of a command's stages on stderr (%, rate, ETA), shown only once a stage takes a while.

A planner waiting on 50,000 sites needs to know that something moves and when it will end;
one assessing three sites needs no noise. So a stage says nothing until it has run for
``quiet_seconds``; after that a terminal gets one line rewritten in place (at most a few
times a second) and a log file gets a line per tenth of the work. Only stderr: stdout
carries the results table, which may be piped into another program.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

import attrs

Clock = Callable[[], float]


@attrs.define(kw_only=True)
class Stage:
    """One stage (reading, validating, assessing, writing): call it with (done, total)."""

    label: str
    unit: str
    stream: TextIO
    clock: Clock
    tty: bool
    quiet_seconds: float
    started: float
    shown: bool = False
    last_shown: float = 0.0
    last_tenth: int = -1
    finished: bool = False
    # Rate and ETA count from the first report, not from the stage's start: a stage may
    # spend its first second parsing or gathering before its first item is done.
    first: tuple[int, float] | None = None

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        elapsed = now - self.started
        if self.first is None:
            self.first = (done, now)
        if self.finished or elapsed < self.quiet_seconds:
            return
        complete = total > 0 and done >= total
        if self.tty:
            if complete or not self.shown or now - self.last_shown >= 0.2:
                self._show(done, total, now, end="\n" if complete else "")
        else:
            tenth = done * 10 // total if total else 10
            if tenth != self.last_tenth:
                self.last_tenth = tenth
                self._show(done, total, now, end="\n")
        self.last_shown = now
        self.finished = complete

    def _show(self, done: int, total: int, now: float, end: str) -> None:
        prefix = "\r" if self.tty else ""
        elapsed = now - self.started
        rate = None
        if self.first is not None and done > self.first[0] and now > self.first[1]:
            rate = (done - self.first[0]) / (now - self.first[1])
        text = status_line(self.label, self.unit, done, total, elapsed, rate)
        padding = " " * 4 if self.tty else ""
        print(f"{prefix}{text}{padding}", end=end, file=self.stream, flush=True)
        self.shown = True


def status_line(
    label: str, unit: str, done: int, total: int, elapsed: float, rate: float | None = None
) -> str:
    """``assessing 1,200/5,000 sites  24.0 %  400 sites/s  ETA 0:09``.

    ``rate`` is the current pace (None before it can be known); once done, the line gives
    the stage's average pace and its time.
    """
    share = 100.0 * done / total if total else 100.0
    text = f"{label} {done:,}/{total:,} {unit}  {share:5.1f} %"
    if done >= total:
        average = done / elapsed if elapsed > 0 else 0.0
        return f"{text}  {average:,.0f} {unit}/s  done in {clock_time(elapsed)}"
    if rate:
        return f"{text}  {rate:,.0f} {unit}/s  ETA {clock_time((total - done) / rate)}"
    return text


def clock_time(seconds: float) -> str:
    """0:09, 1:05, 1:02:03: how long, in the way a person reads a clock."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@attrs.define(kw_only=True)
class StageProgress:
    """Makes one Stage per step of a run, all on the same stream and clock."""

    stream: TextIO
    clock: Clock
    tty: bool = False
    quiet_seconds: float = 1.0

    def stage(self, label: str, unit: str) -> Stage:
        return Stage(
            label=label,
            unit=unit,
            stream=self.stream,
            clock=self.clock,
            tty=self.tty,
            quiet_seconds=self.quiet_seconds,
            started=self.clock(),
        )
