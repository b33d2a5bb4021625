"""Quotes served from several threads of one process at once do not crash it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.sample_facts import BNW_SITES

SUPPORT = Path(__file__).resolve().parents[1] / "support"
SITES = (
    Path(__file__).resolve().parents[2]
    / "src/nrf/data/samples/defra-rlb-samples/BnW_cleaned_110925/BnW_cleaned_110925.shp"
)


def test_concurrent_quotes_in_one_process_all_answer() -> None:
    # 245 sites × 3 rounds over 8 threads. Before the API serialised its geometry work, GEOS
    # built the shared catchments' prepared indexes from two threads at once and the process
    # died with SIGSEGV (2 runs of 3 here); a crash shows as a negative return code.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SUPPORT.parent), str(SUPPORT)])}
    done = subprocess.run(
        [sys.executable, str(SUPPORT / "api_threads_run.py"), str(SITES)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    posts = BNW_SITES * 3  # every sample site, ROUNDS = 3 times (api_threads_run.py): 735
    assert done.stdout.strip() == f"{posts} of {posts} answered 200"
