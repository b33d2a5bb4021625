"""The benchmark's worker runs with the deployed packages: no geopandas or pandas anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOYED_IMPORTS = ROOT / "benchmarks" / "deployed"

# A spawned child, as the worker starts its job processes: does pyogrio pull in pandas there?
SCRIPT = textwrap.dedent(
    """
    import multiprocessing, sys

    def imported():
        import pyogrio  # noqa: F401
        import nrf.entrypoints.roots.job  # noqa: F401
        return sorted({"geopandas", "pandas"} & set(sys.modules))

    if __name__ == "__main__":
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            child = pool.apply(imported)
        print(imported(), child)
    """
)


def run(pythonpath: str | None, folder: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    script = folder / "imports.py"  # a file, so the spawned child can import its function
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_benchmark_puts_the_folder_on_the_measured_processes_path() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from benchmarks import deployed_env as d; print(d.DEPLOYED_IMPORTS)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert Path(done.stdout.strip()) == DEPLOYED_IMPORTS
    # The worker benchmark and the nrf method's children are started with it.
    for module in ("worker_bench.py", "run.py"):
        assert "deployed_env(" in (ROOT / "benchmarks" / module).read_text()


def test_the_worker_and_its_spawned_children_import_neither(tmp_path: Path) -> None:
    assert run(str(DEPLOYED_IMPORTS), tmp_path) == "[] []"


def test_without_it_this_environment_would_import_both(tmp_path: Path) -> None:
    # The control: the test environment has the benchmark extra, so pyogrio imports both.
    assert run(None, tmp_path) == "['geopandas', 'pandas'] ['geopandas', 'pandas']"


def test_an_import_of_geopandas_fails_as_it_would_in_the_image() -> None:
    env = {**os.environ, "PYTHONPATH": str(DEPLOYED_IMPORTS)}
    done = subprocess.run(
        [sys.executable, "-c", "import geopandas"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "ModuleNotFoundError: No module named 'geopandas' (not in the deployed image)" in (
        done.stderr
    )
