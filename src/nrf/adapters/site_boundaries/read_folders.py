"""A read's temporary folder is named by its process, so a killed process's are removed later.

An upload is copied to a temporary folder for GDAL (a zip extracted, up to 200 MiB); a process
killed mid-read (SIGKILL, the out-of-memory killer) never runs its clean-up, and the copy
stayed in TMPDIR. Each folder is ``nrf-boundary-<pid>-<random>``; a process's first read
removes the folders of processes no longer running. Only on POSIX, where ``os.kill(pid, 0)``
asks whether a process exists (on Windows it would end it): there the folder is left, as before.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "nrf-boundary-"
_OURS = re.compile(re.escape(PREFIX) + r"(\d+)-")
_swept_by: int | None = None  # the process that last swept (a forked child sweeps again)


@contextmanager
def read_folder() -> Iterator[Path]:
    """A new temporary folder for one read, removed after it."""
    _sweep_once()
    with tempfile.TemporaryDirectory(prefix=f"{PREFIX}{os.getpid()}-") as folder:
        yield Path(folder)


def _sweep_once() -> None:
    global _swept_by
    if os.name != "posix" or _swept_by == os.getpid():
        return
    _swept_by = os.getpid()
    sweep(Path(tempfile.gettempdir()))


def sweep(parent: Path) -> list[Path]:
    """Remove the read folders under ``parent`` whose process has ended; those removed."""
    removed = []
    with contextlib.suppress(OSError):
        for path in parent.iterdir():
            found = _OURS.match(path.name)
            if found and path.is_dir() and not path.is_symlink() and _ended(int(found[1])):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


def _ended(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process: running
        return False
    return False
