"""The documented way to make a sample delivery runs on nrf's own install, with no extra.

docs/reference-data.md shows `scripts/bench-build` writing a synthetic delivery in Defra's
layout (and building it). The test environment has every extra (the ``test`` extra pulls in
``bench``'s geopandas), so only an install of nrf's own dependencies, as `uv sync --frozen`
makes it for a user, shows whether the command needs something that install lacks.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fresh_install(where: Path) -> Path:
    """nrf's locked dependencies and nothing else, in a new environment; its python."""
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(where)}
    env.pop("VIRTUAL_ENV", None)
    subprocess.run(
        ["scripts/uv", "sync", "--frozen", "--quiet"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=600,
    )
    return where / "bin" / "python"


def test_scripts_bench_build_writes_and_builds_a_delivery_on_a_fresh_install(
    tmp_path: Path,
) -> None:
    python = fresh_install(tmp_path / "env")
    # The install is nrf's alone: the benchmark's extra is not in it.
    probe = subprocess.run(
        [str(python), "-c", "import geopandas"], capture_output=True, text=True, check=False
    )
    assert probe.returncode != 0 and "geopandas" in probe.stderr
    done = subprocess.run(
        ["scripts/bench-build", "--polygons", "500", "--work", str(tmp_path / "work")],
        cwd=ROOT,
        env={**os.environ, "PYTHON": str(python)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["exit_code"] == 0
