"""`nrf demo --limit 5`: sample sites through local SQS and the real worker, then all stopped."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.domain.rules import DEFAULT_RULE_SET, rule_set_named
from nrf.domain.validation import validate_features
from nrf.entrypoints.roots.core import Core, build
from support.reference import QUOTE_DATE


def first_sites_as_assessed(count: int) -> list[tuple[float, float]]:
    """(N, P) of the first sample sites, assessed in-process without any queue."""
    shapefile = bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
    developments = validate_features(read_boundary_file(shapefile))[:count]
    run = build(Core).assess_developments()(
        developments, rule_set_named(DEFAULT_RULE_SET), QUOTE_DATE
    )
    by_id = {s.site.rlb_id: (s.n_total, s.p_total) for s in run.sites}
    return [by_id[d.rlb_id] for d in developments]


def test_nrf_demo_runs_five_sample_sites_and_stops_everything(tmp_path: Path) -> None:
    results = tmp_path / "demo-results"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "NRF_", "GOVUK_"))}

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nrf.entrypoints.cli",
            "demo",
            "--limit",
            "5",
            "--results",
            str(results),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    assert "jobs done 5/5" in done.stderr
    assert "submitted 5 Broads & Wensum sample sites" in done.stderr
    assert "stopped the worker (exit code 0)" in done.stderr
    rows = [line for line in done.stdout.splitlines() if re.match(r"demo-\d{14}-\d{4}-", line)]
    assert len(rows) == 5 and all(row.endswith("succeeded") for row in rows)
    assert "5 jobs: 5 succeeded" in done.stdout
    assert "10 notifications (log-only notifier, nothing was emailed): 5 completed, 5 started" in (
        done.stdout
    )
    assert "GET /health: 200" in done.stdout and "GET /ready: 200" in done.stdout
    assert f"results stored under {results.resolve()}" in done.stdout

    folders = sorted(p for p in results.iterdir() if p.is_dir())
    assert len(folders) == 5
    stored = []
    for folder in folders:
        assert json.loads((folder / "status.json").read_text())["status"] == "succeeded"
        [site] = json.loads((folder / "result.json").read_text())["sites"]
        stored.append((site["n_total"], site["p_total"]))
    # The queue path gives the figures the in-process assessment gives (ids sort in RLB order).
    assert stored == first_sites_as_assessed(5)

    started = re.search(r"started nrf worker \(pid (\d+)\); health on port (\d+)", done.stderr)
    assert started is not None
    pid, port = int(started.group(1)), int(started.group(2))
    assert not Path(f"/proc/{pid}").exists(), "the worker's supervisor is still there"
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0, "the health server is still listening"
