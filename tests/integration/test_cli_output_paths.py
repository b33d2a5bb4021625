"""`nrf assess --output`: bad paths refused with a sentence and a stable code, never a traceback.

Each case runs the real command in a subprocess, as a planner would, and checks the exit
code, the message and that nothing else was written or overwritten.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_CANNOT_WRITE, EXIT_USAGE

SAMPLES = bundled_samples()
SMALL_SHP = SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
SMALL_JSON = SAMPLES / "BnW_small_under_1_hectare_geojson" / "BnW_small_under_1_hectare.geojson"


def nrf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_folder_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "out.csv").write_text("an earlier result\n")
    done = nrf("assess", str(SMALL_SHP), "--output", str(tmp_path / "out.csv" / "x.csv"))
    assert done.returncode == EXIT_CANNOT_WRITE
    assert "cannot_write_output" in done.stderr and "not a folder" in done.stderr
    assert "Traceback" not in done.stderr
    assert (tmp_path / "out.csv").read_text() == "an earlier result\n"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_place_the_system_refuses_is_a_clear_error() -> None:
    done = nrf("assess", str(SMALL_SHP), "--output", "/proc/nrf-result.csv")
    assert done.returncode == EXIT_CANNOT_WRITE
    assert "cannot_write_output" in done.stderr and "/proc/nrf-result.csv" in done.stderr
    assert "Traceback" not in done.stderr
    # Refused before any work: no site was assessed.
    assert "assessed" not in done.stderr


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="root may write a read-only folder"
)
def test_a_read_only_folder_is_a_clear_error(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        done = nrf("assess", str(SMALL_SHP), "--output", str(shared / "r.csv"))
    finally:
        shared.chmod(stat.S_IRWXU)
    assert done.returncode == EXIT_CANNOT_WRITE and "Traceback" not in done.stderr


def test_a_missing_folder_is_created(tmp_path: Path) -> None:
    done = nrf("assess", str(SMALL_SHP), "--output", str(tmp_path / "new" / "deeper" / "r.csv"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "new" / "deeper").iterdir()) == [
        "r.csv",
        "r.levy.csv",
        "r.provenance.json",
    ]


def test_the_output_may_not_be_the_input(tmp_path: Path) -> None:
    boundary = tmp_path / "site.geojson"
    original = SMALL_JSON.read_bytes()
    boundary.write_bytes(original)
    (tmp_path / "sub").mkdir()
    for spelling in (boundary, tmp_path / "sub" / ".." / "site.geojson"):
        done = nrf("assess", str(boundary), "--output", str(spelling))
        assert done.returncode == EXIT_USAGE
        assert "overwrite the input" in done.stderr and "Traceback" not in done.stderr
    assert boundary.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site.geojson", "sub"]


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
@pytest.mark.usefixtures("umask")
def test_output_files_get_the_users_normal_permissions(tmp_path: Path) -> None:
    for name in ("r.csv", "r.json", "r.geojson"):
        assert main(["assess", str(SMALL_SHP), "--output", str(tmp_path / name)]) == 0
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    # 0o666 & ~0o027 = 0o640: owner read-write, group read, others nothing (not 0o600).
    assert modes == dict.fromkeys(
        ["r.csv", "r.levy.csv", "r.provenance.json", "r.json", "r.geojson"], 0o640
    )


def test_results_may_be_written_beside_the_input_again(tmp_path: Path) -> None:
    # A second run beside the shapefile (or into its folder) replaces the earlier results.
    folder = tmp_path / "sites"
    folder.mkdir()
    for part in SMALL_SHP.parent.iterdir():
        (folder / part.name).write_bytes(part.read_bytes())
    beside = folder / f"{SMALL_SHP.stem}.csv"
    for _ in range(2):
        assert main(["assess", str(folder / SMALL_SHP.name), "--output", str(beside)]) == 0
        assert main(["assess", str(folder), "--output", str(folder / "r.json")]) == 0


def test_an_output_whose_sidecar_is_the_input_is_refused(tmp_path: Path) -> None:
    # r.csv also writes r.provenance.json: an input of that name would be overwritten.
    boundary = tmp_path / "r.provenance.json"
    boundary.write_bytes(SMALL_JSON.read_bytes())
    done = nrf("assess", str(boundary), "--output", str(tmp_path / "r.csv"))
    assert done.returncode == EXIT_USAGE and "r.provenance.json" in done.stderr
    assert boundary.read_bytes() == SMALL_JSON.read_bytes()
