"""A process killed mid-read leaves no reader running and, after the next read, no files.

A real process extracts a zipped upload (as the API does) and starts a bounded read whose
child sleeps; it is then SIGKILLed, as the out-of-memory killer or an operator would. Its
reading child must die with it (before: it slept on, orphaned), and the extracted copy, which
its clean-up never ran to remove, must go at the next process's first read (before: it stayed
in TMPDIR for good, up to 200 MiB a read).
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from nrf.adapters.site_boundaries.read_folders import sweep
from support.api_inputs import SMALL_JSON

KILLED_MID_READ = """
import io, os, sys, time
import attrs
from nrf.adapters.site_boundaries.boundary_zip import extracted_boundary
from nrf.adapters.site_boundaries.bounded_read import bounded_call
from nrf.domain.validation import DEFAULT_LIMITS
limits = attrs.evolve(DEFAULT_LIMITS, max_read_seconds=600)
def reading():  # in the child: say who it is, then take as long as a stuck GDAL would
    print(os.getpid(), flush=True)
    time.sleep(600)
with extracted_boundary(io.BytesIO(open(sys.argv[1], "rb").read()), limits) as path:
    print(path.parent, flush=True)
    bounded_call(reading, limits=limits)
"""

NEXT_READ = """
import sys
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
print(len(read_boundary_bytes(open(sys.argv[1], "rb").read(), "sites.zip")))
"""


def running(pid: int) -> bool:
    """The process exists and is not a zombie (a killed orphan waiting for init to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def gone_within(pid: int, seconds: float) -> bool:
    """Whether ``pid`` ends within ``seconds`` (a generous bound: SIGKILL is immediate)."""
    deadline = time.monotonic() + seconds
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_reader_dies_with_its_parent_and_the_next_read_removes_its_files(
    tmp_path: Path,
) -> None:
    upload = tmp_path / "upload.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write(SMALL_JSON, "sites.geojson")
    upload.write_bytes(buffer.getvalue())
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    parent = subprocess.Popen(
        [sys.executable, "-c", KILLED_MID_READ, str(upload)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        folder = Path(parent.stdout.readline().strip())
        child = int(parent.stdout.readline())
        assert folder.parent == temp and (folder / "boundary.geojson").is_file()
        assert running(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=60)
        outlived = not gone_within(child, 30)
        if outlived:
            os.kill(child, signal.SIGKILL)  # leave no orphan behind, then fail
        assert not outlived, "the reading child outlived its parent"
    finally:
        parent.kill()
        parent.wait(timeout=60)
    assert folder.is_dir()  # its clean-up never ran
    done = subprocess.run(
        [sys.executable, "-c", NEXT_READ, str(upload)], env=env, capture_output=True, text=True
    )
    assert done.stdout.split() == ["1"], done.stderr
    assert not any(temp.iterdir())  # the killed process's copy and the next read's own: gone


def test_the_sweep_keeps_a_running_processs_folder_and_anything_not_ours(tmp_path: Path) -> None:
    mine = tmp_path / f"nrf-boundary-{os.getpid()}-abc"
    other = tmp_path / "nrf-boundary-report"  # no process id: not a read's folder
    for folder in (mine, other):
        folder.mkdir()
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = tmp_path / f"nrf-boundary-{int(ended.stdout)}-xyz"
    dead.mkdir()
    assert sweep(tmp_path) == [dead]
    assert mine.is_dir() and other.is_dir() and not dead.exists()
