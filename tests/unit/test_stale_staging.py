"""A killed build's staging file is swept by the next build; a running build's never is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nrf.bundles import stale_staging
from nrf.bundles.stale_staging import sweep_stale_staging


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _staging(folder: Path, pid: int) -> Path:
    path = folder / f".national.gpkg.{pid}.tmp"
    path.write_bytes(b"half a bundle")
    return path


@pytest.mark.skipif(os.name != "posix", reason="probing a pid is POSIX-only")
def test_only_the_staging_files_of_dead_builds_are_removed(tmp_path: Path) -> None:
    dead = _staging(tmp_path, _dead_pid())
    running = _staging(tmp_path, os.getppid())  # a process that certainly runs
    mine = _staging(tmp_path, os.getpid())
    other_target = tmp_path / f".other.gpkg.{_dead_pid()}.tmp"
    other_target.write_bytes(b"not ours")

    assert sweep_stale_staging(tmp_path / "national.gpkg") == [dead]
    assert not dead.exists()
    assert running.exists() and mine.exists() and other_target.exists()


def test_where_a_pid_cannot_be_probed_safely_nothing_is_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_kill(pid: int, sig: int) -> None:
        raise AssertionError(f"os.kill({pid}, {sig}) would end the process on Windows")

    monkeypatch.setattr(stale_staging, "CAN_PROBE", False, raising=False)
    monkeypatch.setattr(stale_staging.os, "kill", must_not_kill)
    left = _staging(tmp_path, _dead_pid())

    assert sweep_stale_staging(tmp_path / "national.gpkg") == []
    assert left.exists()
