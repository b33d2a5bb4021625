"""Times in logs and `nrf status --json` in ISO 8601 UTC beside the epoch; counts in words
that agree in number; `python -m nrf` is the `nrf` command."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

from test_ops_next_steps import SOURCES, every_concern

from nrf.adapters.telemetry.iso_time import iso_utc
from nrf.adapters.telemetry.logging_setup import JsonFormatter
from nrf.adapters.terminal.status_report import render_json
from nrf.domain.counts import counted
from nrf.domain.fleet_status import concerns

# 1 700 000 000 s after the epoch is 2023-11-14 22:13:20 UTC.
NOW = 1_700_000_000.0


def test_a_log_line_has_the_epoch_and_the_same_instant_in_iso_8601_utc() -> None:
    record = logging.makeLogRecord({"msg": "job_stored", "levelname": "INFO", "name": "nrf"})
    record.created = NOW + 0.25
    line = json.loads(JsonFormatter().format(record))
    assert line["ts"] == 1_700_000_000.25
    assert line["time"] == "2023-11-14T22:13:20.250Z"


def test_status_json_gives_each_time_in_iso_8601_utc_beside_its_epoch() -> None:
    status = every_concern()
    doc = json.loads(render_json(status, concerns(status), SOURCES))
    assert doc["checked_at_utc"] == iso_utc(doc["checked_at"])
    for beat in [*doc["workers"]["live"], *doc["workers"]["stale"], *doc["workers"]["stopped"]]:
        assert beat["started_at_utc"] == iso_utc(beat["started_at"])
    for stuck in doc["stuck_jobs"]:
        assert stuck["lease_ended_at_utc"] == iso_utc(stuck["lease_ended_at"])
    assert iso_utc(NOW) == "2023-11-14T22:13:20.000Z" and iso_utc(None) is None


def test_one_is_singular() -> None:
    assert counted(1, "site") == "1 site"
    assert (counted(0, "site"), counted(2_450, "site")) == ("0 sites", "2,450 sites")
    assert counted(1, "levy", "levies") == "1 levy" and counted(3, "levy", "levies") == "3 levies"


def test_python_m_nrf_is_the_nrf_command() -> None:
    answer = subprocess.run(
        [sys.executable, "-m", "nrf", "assess", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stderr
    assert "--dwellings" in answer.stdout and "--reference" in answer.stdout
