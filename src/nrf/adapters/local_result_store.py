"""LocalResultStore: job results in a local directory, each file replaced atomically."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

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

    def _write(self, path: Path, data: bytes) -> None:
        # A hidden temporary name in the same folder: a reader sees the old file or
        # the whole new one, never half of it.
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            self._replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
