"""LocalOpsRecords: heartbeat, stall and notice records as hidden files in the results root.

Key ``.workers/w1.json`` is the file ``<root>/.workers-w1.json``: a hidden file beside the job
folders, as the claims are (``.claim-<job_id>``), so the root's folders stay exactly the jobs
and whatever lists them (the demo, the load checks, a person) sees nothing else.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

from nrf.domain.jobs import ResultStoreUnavailable

# A folder and a name, both hidden-or-plain words: never a path that leaves the root.
_KEY = re.compile(r"\.[a-z]+/[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}")


def check_key(key: str) -> str:
    """Keys are ``.<folder>/<name>``: a hidden folder, so never mistaken for a job."""
    if _KEY.fullmatch(key) is None or ".." in key:
        raise ValueError(f"not an ops record key: {key!r}")
    return key


class LocalOpsRecords:
    """``<root>/.<folder>-<name>``; each write replaces the file whole."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / check_key(key).replace("/", "-", 1)

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        try:
            temp = self._temp(path, data)
            os.replace(temp, path)
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot write {key}: {exc.strerror}") from exc

    def put_new(self, key: str, data: bytes) -> bool:
        # link() refuses an existing name atomically, and the new name appears with its
        # whole content: of two racing writers exactly one wins.
        path = self._path(key)
        try:
            temp = self._temp(path, data)
            try:
                os.link(temp, path)
                return True
            except FileExistsError:
                return False
            finally:
                os.unlink(temp)
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot write {key}: {exc.strerror}") from exc

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot read {key}: {exc.strerror}") from exc

    def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    def keys(self, folder: str) -> list[str]:
        start = f"{folder}-"
        try:
            names = sorted(p.name for p in self.root.iterdir() if p.name.startswith(start))
        except FileNotFoundError:
            return []
        return [f"{folder}/{name[len(start) :]}" for name in names if not name.endswith(".tmp")]

    def _temp(self, path: Path, data: bytes) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        return temp
