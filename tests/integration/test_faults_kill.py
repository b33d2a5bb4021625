"""SIGKILL of the whole worker at random points of random jobs, restarted each time."""

from __future__ import annotations

from pathlib import Path

from support.fake_notify import FakeNotifyServer
from support.kill_scenario import run_kill_scenario
from support.moto_server import MotoServer


def test_random_kills_lose_nothing_and_repeat_nothing(
    aws: MotoServer, fake_notify: FakeNotifyServer, tmp_path: Path
) -> None:
    # Enough jobs that the fourth kill still finds work on a fast machine: a round can
    # take a dozen jobs there (24 were all settled after three kills on CI). The jobs
    # left after the last kill only cost the final worker a few seconds.
    report = run_kill_scenario(
        aws,
        fake_notify,
        tmp_path / "results",
        jobs=96,
        kills=4,
        seed=20260425,
        deadline_seconds=120,
    )

    assert report.kills == 4
    assert report.redeliveries > 0, "the kills must have caught jobs in flight to prove anything"
    assert report.ok, report
