"""`nrf assess` feedback: progress on stderr for every stage, never stdout; a true closing time."""

from __future__ import annotations

import io
import re
from pathlib import Path

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.entrypoints.assess_command import run_assess
from nrf.entrypoints.cli import build_parser
from support.sample_facts import BNW_SITES

BNW = bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
SMALL_SHP = bundled_samples() / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"


class TickingClock:
    """Each reading is one second after the last: every stage looks slow."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


class StoppedClock:
    """Time never passes: every stage looks instant."""

    def __call__(self) -> float:
        return 50.0


def run(argv: list[str], clock: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = build_parser().parse_args(["assess", *argv, "--processes", "1"])
    code = run_assess(args, clock=clock, environ={}, stdout=out, stderr=err)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


def test_every_stage_shows_percent_rate_and_eta_on_stderr_only(tmp_path: Path) -> None:
    code, out, err = run([str(BNW), "--output", str(tmp_path / "r.geojson")], TickingClock())
    assert code == 0 and out == ""
    for stage, unit in (
        ("reading", "features"),
        ("validating", "sites"),
        ("assessing", "sites"),
        ("writing", "records"),
    ):
        lines = [line for line in err.splitlines() if line.startswith(f"{stage} ")]
        assert any(f"/{BNW_SITES} {unit}" in line and "ETA" in line for line in lines), stage
        done = f"{stage} {BNW_SITES}/{BNW_SITES} {unit}  100.0 %"
        assert any(line.startswith(done) for line in lines), stage


def test_the_closing_time_is_the_whole_run_stage_by_stage(tmp_path: Path) -> None:
    _, _, err = run([str(SMALL_SHP), "--output", str(tmp_path / "r.csv")], TickingClock())
    closing = err.strip().splitlines()[-1]
    # The small file's one site lies inside the Wensum catchment (test_cli_sample_facts.py).
    found = re.fullmatch(
        r"assessed 1 site in ([\d.]+) s \(1 in scope, 0 out of scope; (.*)\)", closing
    )
    assert found, closing
    stages = dict(re.findall(r"(\w+) ([\d.]+) s", found.group(2)))
    assert list(stages) == ["starting", "reading", "validating", "assessing", "writing"]
    # The stages follow one another from the command's start to its end: they add up.
    assert abs(sum(float(v) for v in stages.values()) - float(found.group(1))) < 0.05


def test_a_small_quick_run_shows_no_progress_and_prints_the_table_on_stdout() -> None:
    code, out, err = run([str(SMALL_SHP)], StoppedClock())
    assert code == 0 and "24/00119/F" in out  # the small file's id (its .dbf)
    assert "%" not in err and "ETA" not in err
    assert err.strip().splitlines()[-1].startswith("assessed 1 site in 0.0 s")
