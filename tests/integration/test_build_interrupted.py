"""A build stopped part-way (Ctrl-C, SIGTERM, a kill, a full disk) leaves nothing half-written.

The build runs as a real child process. To stop it at a known point, without sleeping or
racing it, the child's quality gate first opens a FIFO and waits on it: when the test's own
open of the FIFO returns, the child is there, with every layer staged in its hidden file. The
test then signals it. A full disk is a real 160 KiB tmpfs (root only; skipped otherwise).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nrf.entrypoints.cli import main
from support.delivery import FixtureData, build_command, write_delivery

OLD = b"an older bundle that a stopped build must leave alone"
# The child: the real command, with the gate waiting on the FIFO named first.
CHILD = """
import sys
from nrf.bundles import build
gate = build.run_gate
def paused_gate(*args, **kwargs):
    with open(sys.argv[1], "rb") as fifo:
        fifo.read(1)
    return gate(*args, **kwargs)
build.run_gate = paused_gate
from nrf.entrypoints.cli import main
sys.exit(main(sys.argv[2:]))
"""
# The same, paused instead after the first tile's result came back from two forked gate
# workers (600 cells, at most 40 a tile: 16+ tiles), so the signal lands mid-gate.
CHILD_IN_GATE = """
import sys
from nrf.bundles.qc import tiles
tiles.TILE_FEATURES = 40
tiles.os.cpu_count = lambda: 2
merge = tiles._merge
def paused_merge(*args, **kwargs):
    with open(sys.argv[1], "rb") as fifo:
        fifo.read(1)
    return merge(*args, **kwargs)
tiles._merge = paused_merge
from nrf.entrypoints.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _delivery(tmp_path: Path, out: Path) -> list[str]:
    root = tmp_path / "iat_input"
    paths = write_delivery(root, FixtureData())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(OLD)
    return build_command(root, paths, out, "2")


def _staging(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def _stop_while_staged(
    tmp_path: Path, signum: int, child_code: str = CHILD
) -> tuple[int, str, list[str], Path]:
    """Run the build, signal it once its bundle is staged; exit status, stderr, the staging
    files seen while it was paused, and the output path."""
    out = tmp_path / "out" / "out.gpkg"
    args = _delivery(tmp_path, out)
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    child = subprocess.Popen(
        [sys.executable, "-c", child_code, str(fifo), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with fifo.open("wb"):  # returns once the child waits in its gate
            staged = _staging(out)
            child.send_signal(signum)
            # Read stderr while waiting: a build's progress lines can pass a pipe's 64 KiB,
            # and a child blocked writing them never exits (wait alone hung here once).
            _, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, stderr, staged, out


@pytest.mark.parametrize(
    ("signum", "status", "message", "child_code"),
    [
        (signal.SIGINT, 130, "interrupted; nothing was written", CHILD),
        (signal.SIGTERM, 143, "stopped by SIGTERM; nothing was written", CHILD),
        (signal.SIGTERM, 143, "stopped by SIGTERM; nothing was written", CHILD_IN_GATE),
    ],
    ids=["SIGINT", "SIGTERM", "SIGTERM-in-forked-gate"],
)
def test_a_signalled_build_removes_its_staging_file_and_keeps_the_old_bundle(
    tmp_path: Path, signum: int, status: int, message: str, child_code: str
) -> None:
    exit_status, stderr, staged, out = _stop_while_staged(tmp_path, signum, child_code)
    assert len(staged) == 1 and staged[0].endswith(".tmp")  # it was stopped mid-build
    assert exit_status == status, stderr
    assert message in stderr and "Traceback" not in stderr
    assert out.read_bytes() == OLD
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.gpkg"]


def test_a_killed_build_leaves_a_staging_file_that_the_next_build_removes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exit_status, _, staged, out = _stop_while_staged(tmp_path, signal.SIGKILL)
    assert exit_status == -signal.SIGKILL
    assert out.read_bytes() == OLD
    assert _staging(out) == staged  # nothing can run on SIGKILL: the file is still there
    capsys.readouterr()
    args = build_command(tmp_path / "iat_input", _paths(tmp_path), out, "3")
    assert main(args) == 0
    assert f"removed {staged[0]}, left by a build that was killed" in capsys.readouterr().err
    assert _staging(out) == []
    assert out.read_bytes() != OLD


def _paths(tmp_path: Path) -> dict[str, Path]:
    return {
        "charges": tmp_path / "iat_input-levy-charges.csv",
        "index": tmp_path / "iat_input-inflation-index.csv",
        "manifest": tmp_path / "iat_input-sources.toml",
    }


def test_a_staging_file_of_a_build_still_running_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "out.gpkg"
    args = _delivery(tmp_path, out)
    other = out.parent / f".out.gpkg.{os.getppid()}.tmp"  # our parent: alive
    other.write_bytes(b"another build's staging file")
    assert main(args) == 0
    assert other.read_bytes() == b"another build's staging file"


def test_a_missing_output_folder_is_created_as_assess_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "out.gpkg"
    args = _delivery(tmp_path, out)
    missing = tmp_path / "no-such-folder" / "deeper" / "out.gpkg"
    args[args.index(str(out))] = str(missing)
    assert main(args) == 0
    assert missing.is_file() and missing.with_suffix(".qc.md").is_file()


def test_an_output_folder_that_cannot_be_made_is_refused_with_exit_7(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "out.gpkg"
    args = _delivery(tmp_path, out)
    (tmp_path / "a-file").write_text("not a folder")
    blocked = tmp_path / "a-file" / "out.gpkg"
    args[args.index(str(out))] = str(blocked)
    capsys.readouterr()
    assert main(args) == 7
    stderr = capsys.readouterr().err
    assert "cannot_write_output" in stderr and "a-file" in stderr
    assert (tmp_path / "a-file").read_text() == "not a folder"


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 160 KiB tmpfs: room for the old bundle, not for the new one (about 290 KiB)."""
    disk = tmp_path / "tiny"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        _unmount(disk)


def _unmount(disk: Path) -> None:
    """Always unmounts: a busy tmpfs (a child still holding a file) is detached lazily."""
    if subprocess.run(["umount", str(disk)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "--lazy", str(disk)], capture_output=True, check=True)


def test_the_tiny_disk_is_unmounted_even_while_a_file_on_it_is_open(tmp_path: Path) -> None:
    """The teardown's own guarantee: a plain umount of a busy tmpfs fails and leaves it."""
    disk = tmp_path / "busy"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    if subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(disk)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with open(disk / "held", "w") as held:
            held.write("x")
            _unmount(disk)
        assert not os.path.ismount(disk)
    finally:
        if os.path.ismount(disk):  # pragma: no cover - only when the assertion failed
            subprocess.run(["umount", "--lazy", str(disk)])


def test_a_full_disk_is_refused_with_exit_7_and_leaves_nothing(
    tmp_path: Path, tiny_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tiny_disk / "out.gpkg"
    args = _delivery(tmp_path, tmp_path / "out" / "out.gpkg")
    args[args.index(str(tmp_path / "out" / "out.gpkg"))] = str(out)
    out.write_bytes(OLD)
    (tiny_disk / "out.qc.md").write_text("the older bundle's report\n")
    capsys.readouterr()
    assert main(args) == 7
    stderr = capsys.readouterr().err
    assert "cannot_write_output" in stderr and "the disk is full" in stderr, stderr
    assert out.read_bytes() == OLD
    assert (tiny_disk / "out.qc.md").read_text() == "the older bundle's report\n"
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["out.gpkg", "out.qc.md"]


def _die(tile: object) -> object:
    """A tile check that kills its own (forked) worker, as the OOM killer would."""
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def test_a_gate_worker_that_dies_stops_the_build_with_a_code_not_a_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from nrf.bundles.qc import tiles

    # 600 cells, at most 40 a tile: 16+ tiles, shared by two forked workers that die.
    monkeypatch.setattr(tiles, "TILE_FEATURES", 40)
    monkeypatch.setattr(tiles.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(tiles, "_check", _die)
    out = tmp_path / "out" / "out.gpkg"
    args = _delivery(tmp_path, out)
    capsys.readouterr()
    assert main(args) == 1
    stderr = capsys.readouterr().err
    assert "gate_worker_died" in stderr and "nothing was written" in stderr
    assert out.read_bytes() == OLD
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.gpkg"]
