"""Whole-file writes through a hidden temporary name, created with the user's normal permissions.

``tempfile.mkstemp`` creates files 0600 so that nobody else can race for them; a result file
renamed from it stays 0600 and colleagues on a shared drive cannot open it. Here the temporary
file is created with mode 0666 and the operating system applies the umask, exactly as for any
file a program opens for writing (``0o666 & ~umask``: usually 0644).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def create_temporary(folder: Path, name: str) -> tuple[int, Path]:
    """A new, empty, hidden file beside ``folder/name``: (descriptor, path)."""
    for _ in range(100):
        path = folder / f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(path, _FLAGS, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {name!r} in {str(folder)!r}")


def write_atomically(
    path: Path,
    data: bytes,
    *,
    fsync: bool = False,
    replace: Callable[..., None] = os.replace,
) -> None:
    """Write ``data`` to ``path``: a reader sees the old file or the whole new one."""
    fd, temp = create_temporary(path.parent, path.name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
