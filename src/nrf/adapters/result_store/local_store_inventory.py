"""LocalStoreInventory: list and delete job folders, claims and temporary files on disk."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from nrf.adapters.result_store.local_result_store import RECORD_NAME, lock_exclusively
from nrf.domain.claims import Lease, lease_from_json
from nrf.domain.ops_ports import StoredClaim, StoredJob

_CLAIM = ".claim-"


class LocalStoreInventory:
    """The layout of LocalResultStore: ``<root>/<job_id>/`` and ``<root>/.claim-<job_id>``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def jobs(self) -> Iterator[StoredJob]:
        for folder in self._entries():
            if folder.name.startswith(".") or not folder.is_dir():
                continue
            found = [_mtime(p) for p in folder.iterdir() if p.is_file()]
            times = [t for t in found if t is not None]
            record = _mtime(folder / RECORD_NAME)
            newest = max(times) if times else (_mtime(folder) or 0.0)
            yield StoredJob(folder.name, record, newest)

    def delete_job(self, job_id: str) -> int:
        folder = self.root / job_id
        if job_id.startswith(".") or not folder.is_dir():
            return 0
        count = 0
        # The record first: a job cut off half-way through reads as unfinished, never finished.
        with contextlib.suppress(FileNotFoundError):
            (folder / RECORD_NAME).unlink()
            count += 1
        with contextlib.suppress(FileNotFoundError):
            count += sum(1 for p in folder.iterdir() if p.is_file())
            shutil.rmtree(folder)
        return count

    def claims(self) -> Iterator[StoredClaim]:
        for path in self._entries():
            if not path.name.startswith(_CLAIM):
                continue
            job_id = path.name[len(_CLAIM) :]
            try:
                data, modified = path.read_bytes(), path.stat().st_mtime
            except FileNotFoundError:
                continue
            yield StoredClaim(_lease(data, job_id), modified)

    def delete_claim(self, job_id: str, expired_before: float) -> bool:
        path = self.root / f"{_CLAIM}{job_id}"
        try:
            handle = open(path, "r+b")  # noqa: SIM115 - closed below, after the unlock
        except FileNotFoundError:
            return False
        with handle:
            # Under the same lock a claimant takes, so no claim is taken while we decide.
            lock_exclusively(handle)
            lease = _lease(handle.read(), job_id)
            if lease.expires_at >= expired_before:
                return False
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return True

    def temp_files(self, older_than: float) -> list[str]:
        found = []
        for folder in [self.root, *(p for p in self._entries() if p.is_dir())]:
            for path in folder.glob(".*.tmp"):
                modified = _mtime(path)
                if modified is not None and modified < older_than:
                    found.append(str(path.relative_to(self.root)))
        return sorted(found)

    def delete_temp(self, name: str) -> None:
        path = (self.root / name).resolve()
        if path.parent != self.root.resolve() and path.parent.parent != self.root.resolve():
            raise ValueError(f"not inside the result store: {name!r}")
        if not path.name.endswith(".tmp"):
            raise ValueError(f"not a temporary file: {name!r}")
        with contextlib.suppress(FileNotFoundError):
            path.unlink()

    def _entries(self) -> list[Path]:
        try:
            return sorted(self.root.iterdir())
        except FileNotFoundError:
            return []


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return None


def _lease(data: bytes, job_id: str) -> Lease:
    try:
        return lease_from_json(data)
    except ValueError:
        return Lease(
            job_id=job_id, owner="", expires_at=0.0
        )  # torn or empty: free (as LocalResultStore reads it)
