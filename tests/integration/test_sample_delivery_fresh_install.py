"""The documented way to make a sample delivery runs on nrf's own install, with no extra.

docs/reference-data.md shows `scripts/bench-build` writing a synthetic delivery in Defra's
layout (and building it). The test environment has every extra (the ``test`` extra pulls in
``bench``'s geopandas), so only an install of nrf's own dependencies, as `uv sync --frozen`
makes it for a user, shows whether the command needs something that install lacks.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from support.doc_commands import ROOT, inline_commands

SYNOPSIS = "scripts/bench-build --polygons N [--work DIR] [--keep]"


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
    # The synopsis docs/reference-data.md writes, its placeholders filled (--keep left out).
    [shown] = [
        c for c in inline_commands() if c.doc == "docs/reference-data.md" and c.command == SYNOPSIS
    ]
    command = shown.command.replace(" [--keep]", "").replace("[--work DIR]", "--work DIR")
    command = command.replace(" N ", " 500 ").replace(
        " DIR", " " + shlex.quote(str(tmp_path / "work"))
    )
    done = subprocess.run(
        shlex.split(command),
        cwd=ROOT,
        env={**os.environ, "PYTHON": str(python)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["exit_code"] == 0
