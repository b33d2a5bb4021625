"""LocalResultStore: job results in a local directory, each file replaced atomically."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from nrf.adapters.atomic_files import write_atomically
from nrf.domain.claims import Lease, lease_from_json, lease_to_json, next_lease
from nrf.domain.jobs import (
    JobRecord,
    ResultStoreUnavailable,
    job_record_from_json,
    job_record_to_json,
    validate_job_id,
)

RECORD_NAME = "status.json"


def check_file_names(files: Mapping[str, bytes]) -> None:
    """File names follow the job-id rule, so none can leave the job's folder or hide."""
    for name in files:
        validate_job_id(name)
        if name == RECORD_NAME:
            raise ValueError(f"{RECORD_NAME} is reserved for the job record")


class LocalResultStore:
    """``<root>/<job_id>/<file>`` with ``status.json`` written last."""

    def __init__(self, root: str | os.PathLike[str], *, replace: Callable[..., None] = os.replace):
        self.root = Path(root)
        # Injected so tests can fail a rename part-way without patching ``os``.
        self._replace = replace

    def record(self, job_id: str) -> JobRecord | None:
        path = self.root / validate_job_id(job_id) / RECORD_NAME
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot read {RECORD_NAME}: {exc.strerror}") from exc
        try:
            return job_record_from_json(data)
        except ValueError as exc:
            raise ResultStoreUnavailable(f"{RECORD_NAME} is not a job record") from exc

    def save(self, job_id: str, files: Mapping[str, bytes], record: JobRecord) -> str:
        folder = self.root / validate_job_id(job_id)
        if record.job_id != job_id:
            raise ValueError("the record belongs to another job")
        check_file_names(files)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in files.items():
                self._write(folder / name, data)
            self._write(folder / RECORD_NAME, job_record_to_json(record))
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot write results: {exc.strerror or exc}") from exc
        return str(folder)

    def claim(self, job_id: str, owner: str, now: float, lease_seconds: float) -> Lease:
        with self._claim_file(job_id) as handle:
            current = _read_lease(handle, job_id)
            lease = next_lease(current, job_id, owner, now, lease_seconds)
            if lease is None:
                assert current is not None
                return current
            _rewrite(handle, lease_to_json(lease))
            return lease

    def release(self, job_id: str, owner: str, now: float) -> None:
        with self._claim_file(job_id) as handle:
            current = _read_lease(handle, job_id)
            if current is not None and current.held_by(owner):
                _rewrite(handle, lease_to_json(Lease(job_id=job_id, owner=owner, expires_at=now)))

    @contextlib.contextmanager
    def _claim_file(self, job_id: str) -> Iterator[BinaryIO]:
        """The job's claim file, locked for this process alone while the block runs.

        Read-decide-write happens under an exclusive flock, so two processes can never
        both take the claim (first claim or takeover of an expired one). The kernel drops
        the lock when its holder dies, even by kill -9, so a crash never wedges a job. A
        hidden file in the root: not a job folder, and no job id can start with a dot.
        """
        path = self.root / f".claim-{validate_job_id(job_id)}"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a+b")  # noqa: SIM115 - closed below, after the unlock
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot open the claim: {exc.strerror}") from exc
        try:
            lock_exclusively(handle)
            yield handle
        except OSError as exc:
            raise ResultStoreUnavailable(f"cannot write the claim: {exc.strerror}") from exc
        finally:
            handle.close()  # closing drops the lock

    def sweep_temporaries(self, now: float, older_than: float) -> int:
        """Delete ``.<file>.*.tmp`` files left by writers killed mid-write; returns how many.

        Only those untouched for ``older_than`` seconds: a live writer renames its
        temporary within the one save call, so an old one has no writer left.
        """
        swept = 0
        for temp in self.root.glob("*/.*.tmp"):
            try:
                if now - temp.stat().st_mtime >= older_than:
                    temp.unlink()
                    swept += 1
            except FileNotFoundError:  # renamed or swept by someone else meanwhile
                continue
            except OSError as exc:
                raise ResultStoreUnavailable(f"cannot sweep {temp.name}: {exc.strerror}") from exc
        return swept

    def _write(self, path: Path, data: bytes) -> None:
        # A hidden temporary name in the same folder: a reader sees the old file or
        # the whole new one, never half of it; created with the umask's permissions.
        write_atomically(path, data, fsync=True, replace=self._replace)


def lock_exclusively(handle: BinaryIO) -> None:
    """flock, imported here: ``nrf assess`` loads this module on Windows, where there is none.

    Only the worker claims jobs, and the worker runs on Linux.
    """
    try:
        import fcntl
    except ImportError:
        raise ResultStoreUnavailable(
            "claiming a job needs POSIX file locks (fcntl); run the worker on Linux"
        ) from None
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)


def _read_lease(handle: BinaryIO, job_id: str) -> Lease | None:
    handle.seek(0)
    data = handle.read()
    if not data:
        return None
    try:
        return lease_from_json(data)
    except ValueError:
        # Torn by a holder killed mid-write: that holder is gone, so the lease is free,
        # but someone did start the job, so it is not a first claim.
        return Lease(job_id=job_id, owner="", expires_at=0.0)


def _rewrite(handle: BinaryIO, data: bytes) -> None:
    handle.seek(0)
    handle.truncate()
    handle.write(data)
    handle.flush()
    os.fsync(handle.fileno())
