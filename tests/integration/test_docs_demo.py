"""README.md's `scripts/demo` runs as written, its results in a temporary folder, not out/.

The script takes the folder as its one argument (default out/ in the repository), so the only
change to the README's line is that argument: nothing is left in the checkout. It installs
(a no-op once ./.venv matches uv.lock), assesses the 245 samples four ways and runs them as jobs
through local SQS and the real worker; about a minute.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from support.doc_commands import ROOT, doc_commands

SAMPLE_SITES = 245


def _snapshot(folder: Path) -> set[tuple[str, int]]:
    if not folder.exists():
        return set()
    return {(str(p.relative_to(folder)), p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.mark.slow
def test_scripts_demo_runs_as_readme_shows(tmp_path: Path) -> None:
    [command] = [c.command for c in doc_commands() if c.doc == "README.md" and "demo" in c.command]
    assert command == "scripts/demo"
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NRF_", "AWS_", "GOVUK_"))}
    before = _snapshot(ROOT / "out")
    done = subprocess.run(
        ["bash", "-c", f"{command} {shlex.quote(str(out))}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,  # bounds a hang only
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # Four assessments of the samples, then every job answered by the worker.
    assessed = re.findall(rf"^assessed {SAMPLE_SITES} sites in ", done.stderr, re.MULTILINE)
    assert len(assessed) == 4, done.stderr[-3000:]
    assert f"results written to {out}/" in done.stderr
    summary = re.search(r"^(\d+) jobs: (\d+) out of scope, (\d+) succeeded;", done.stdout, re.M)
    assert summary is not None, done.stdout[-3000:]
    jobs, out_of_scope, succeeded = map(int, summary.groups())
    assert jobs == out_of_scope + succeeded == SAMPLE_SITES
    assert f"results stored under {out}/demo-results/" in done.stdout
    for suffix in (".csv", ".levy.csv", ".provenance.json", ".json", ".geojson"):
        assert (out / f"broads-wensum{suffix}").stat().st_size > 0, suffix
    assert len([p for p in (out / "demo-results").iterdir() if p.is_dir()]) == SAMPLE_SITES
    assert _snapshot(ROOT / "out") == before  # nothing written to the checkout's out/
