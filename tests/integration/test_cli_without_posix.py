"""`nrf assess` on a Python without POSIX-only modules, as on a planner's Windows PC.

tests/support/no_posix/sitecustomize.py makes fcntl, resource, pwd, grp, termios, syslog and
_posixshmem raise ImportError, as they do on Windows; everything `nrf assess` imports and
runs must still work. (The worker may stay Linux-only: it claims jobs with flock.)
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

from nrf.adapters.boundary_data.packaged import bundled_samples
from support.sample_facts import BNW_SITES

ROOT = Path(__file__).resolve().parents[2]
BLOCKER = ROOT / "tests" / "support" / "no_posix"
SAMPLES = bundled_samples()
SMALL_SHP = SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
BNW = SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
SMALL_JSON = SAMPLES / "BnW_small_under_1_hectare_geojson" / "BnW_small_under_1_hectare.geojson"


def without_posix(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(BLOCKER)}
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_blocker_really_blocks_posix_modules() -> None:
    for name in ("fcntl", "resource", "pwd", "grp", "termios"):
        done = without_posix("-c", f"import {name}")
        assert done.returncode == 1 and "blocked" in done.stderr, name


def test_the_cli_and_its_roots_import_without_fcntl() -> None:
    code = (
        "import nrf.entrypoints.cli, nrf.entrypoints.roots.core,"
        " nrf.entrypoints.roots.dead_letters, nrf.entrypoints.assess_command,"
        " nrf.adapters.result_store.local_result_store, nrf.adapters.outputs.result_files;"
        " import sys; assert 'fcntl' not in sys.modules"
    )
    done = without_posix("-c", code)
    assert done.returncode == 0, done.stderr


def test_nrf_assess_writes_every_output_without_posix_modules(tmp_path: Path) -> None:
    for name in ("bnw.csv", "bnw.geojson", "bnw.json"):
        done = without_posix(
            "-m", "nrf.entrypoints.cli", "assess", str(BNW), "--output", str(tmp_path / name)
        )
        assert done.returncode == 0, done.stderr[-2000:]
    with open(tmp_path / "bnw.levy.csv", encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    # 245 sample sites, one row each, between the header (row 1) and the total row.
    assert rows[0][0] == "RLB_ID" and len({row[0] for row in rows[1:-1]}) == BNW_SITES
    printed = without_posix("-m", "nrf.entrypoints.cli", "assess", str(SMALL_SHP))
    assert printed.returncode == 0 and "24/00119/F" in printed.stdout  # the small file's id


def test_the_worker_store_says_why_it_cannot_claim_without_flock(tmp_path: Path) -> None:
    code = (
        "from nrf.adapters.result_store.local_result_store import LocalResultStore\n"
        "from nrf.domain.jobs import ResultStoreUnavailable\n"
        f"store = LocalResultStore({str(tmp_path)!r})\n"
        "try:\n"
        "    store.claim('NRF-000001', 'me', 0.0, 60.0)\n"
        "except ResultStoreUnavailable as exc:\n"
        "    print(exc)\n"
    )
    done = without_posix("-c", code)
    assert done.returncode == 0, done.stderr
    assert "fcntl" in done.stdout and "Linux" in done.stdout


def test_the_table_survives_a_windows_code_page_on_stdout(tmp_path: Path) -> None:
    # Redirected stdout on Windows is cp1252: "é" is in it (0xE9), "→" is not: replaced.
    shp = tmp_path / "site.geojson"
    shp.write_text(
        SMALL_JSON.read_text(encoding="utf-8").replace('"24/00119/F"', '"é→24/00119/F"'),
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    done = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "assess", str(shp)],
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode("cp1252", "replace")[-2000:]
    assert b"\xe9?24/00119/F" in done.stdout
