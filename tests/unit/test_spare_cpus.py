"""Spare CPUs: the load average, and the tasks runnable now, which do not lag a busy neighbour."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nrf.adapters.site_map.forked_site_map import runnable_now, spare_cpus, spare_cpus_now


@pytest.mark.parametrize(
    ("cpus", "load", "runnable", "expected"),
    [
        (2.0, 0.2, 1, 1.0),  # idle: the caller alone, one CPU spare
        (2.0, 0.7, 2, 0.0),  # a loop started 45 s ago: load 0.7 lags, 2 runnable now
        (2.0, 1.6, 1, 0.4),  # the rig's load, nothing runnable beside the caller this instant
        (2.0, 3.1, 2, -1.1),  # two busy loops and the caller: load decides
        (8.0, 0.0, 0, 7.0),  # nothing known: the caller's own CPU is still taken
        (8.0, 2.5, 4, 4.0),
    ],
)
def test_spare_cpus_worked_by_hand(
    cpus: float, load: float, runnable: int, expected: float
) -> None:
    assert spare_cpus(cpus, load, runnable) == pytest.approx(expected)


def test_runnable_now_reads_the_fourth_field(tmp_path: Path) -> None:
    stats = tmp_path / "loadavg"
    stats.write_text("0.24 0.52 0.25 3/80 21978\n", encoding="ascii")
    assert runnable_now(str(stats)) == 3


@pytest.mark.parametrize("text", ["", "0.24 0.52 0.25\n", "0.24 0.52 0.25 x/80 1\n"])
def test_runnable_now_is_zero_when_it_cannot_be_read(tmp_path: Path, text: str) -> None:
    stats = tmp_path / "loadavg"
    stats.write_text(text, encoding="ascii")
    assert runnable_now(str(stats)) == 0
    assert runnable_now(str(tmp_path / "missing")) == 0


@pytest.mark.skipif(not Path("/proc/loadavg").exists(), reason="Linux's /proc/loadavg only")
def test_a_busy_neighbour_started_now_leaves_no_cpu_of_its_own() -> None:
    # A CPU-bound child is always runnable, and so is this process while it reads: at least
    # two, however recent the child and whatever the load average says.
    busy = subprocess.Popen(
        [sys.executable, "-c", "print('busy', flush=True)\nwhile True: pass"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert busy.stdout is not None and busy.stdout.readline() == "busy\n"
        cpus = len(os.sched_getaffinity(0))
        assert runnable_now() >= 2
        assert spare_cpus_now() <= cpus - 2
    finally:
        busy.kill()
        busy.wait()
