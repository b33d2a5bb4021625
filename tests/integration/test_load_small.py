"""The load run at 40 jobs: two real workers, and no job lost or done twice (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKS = [
    "no_job_lost",
    "every_status_as_expected",
    "no_unexpected_results",
    "job_stored_once_per_job",
    "job_finished_once_per_job",
    "one_final_email_per_job",
    "at_most_one_started_email",
    "final_email_recorded_in_status",
    "no_email_for_unknown_jobs",
    "queue_and_dlq_empty",
    "workers_exited_cleanly",
]


def test_forty_jobs_through_two_workers_are_each_stored_and_told_exactly_once(
    tmp_path: Path,
) -> None:
    out = tmp_path / "report"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.load_run",
            "--jobs",
            "40",
            "--out",
            str(out),
            "--work",
            str(tmp_path / "work"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    report = json.loads((out / "load.json").read_text())
    failed = {name: c["detail"] for name, c in report["checks"].items() if not c["ok"]}
    assert failed == {}, done.stderr[-3000:]
    assert done.returncode == 0, done.stderr[-3000:]
    assert list(report["checks"]) == CHECKS
    # build_jobs' rule: its 5 invalid messages, then of the 40 - 5 = 35 valid jobs the real
    # sites take half rounded down (35 // 2 = 17) and random sites the rest (35 - 17 = 18).
    assert report["mix"] == {"real": 17, "random": 18, "invalid": 5}
    # Both workers took work, and every job finished exactly once across them.
    per_worker = report["jobs_per_worker"]
    assert len(per_worker) == 2 and all(n > 0 for n in per_worker.values())
    assert sum(per_worker.values()) == 40
    results = tmp_path / "work" / "results"
    statuses = [json.loads(p.read_text()) for p in results.glob("*/status.json")]
    assert len(statuses) == 40
    assert sum(s["status"] == "succeeded" for s in statuses) == 17 + 18
    failed_codes = sorted(c for s in statuses if s["status"] == "failed" for c in s["error_codes"])
    assert failed_codes == sorted(
        [
            "self_intersecting_geometry",
            "invalid_dwellings",
            "invalid_boundary_uri",
            "boundary_uri_not_allowed",
            "not_json",
        ]
    )
    # At least 35 started + 35 completed + 4 failed (the unparsable body has no address).
    assert report["notifications"] >= 35 + 35 + 4
    assert "| no_job_lost | pass |" in (out / "load.md").read_text()
