"""Recording in-memory fakes of the fleet-operation ports (ops records, inventory, queue)."""

from __future__ import annotations

from collections.abc import Iterator

from nrf.domain.claims import Lease
from nrf.domain.jobs import ResultStoreUnavailable
from nrf.domain.ops_ports import QueueFigures, StoredClaim, StoredJob, WaitingJob


class InMemoryOpsRecords:
    """Keys to bytes; ``down`` makes every call raise ResultStoreUnavailable."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.writes: list[str] = []
        self.down = False

    def _check(self) -> None:
        if self.down:
            raise ResultStoreUnavailable("fake records are down")

    def put(self, key: str, data: bytes) -> None:
        self._check()
        self.data[key] = data
        self.writes.append(key)

    def put_new(self, key: str, data: bytes) -> bool:
        self._check()
        if key in self.data:
            return False
        self.put(key, data)
        return True

    def get(self, key: str) -> bytes | None:
        self._check()
        return self.data.get(key)

    def delete(self, key: str) -> None:
        self._check()
        self.data.pop(key, None)

    def keys(self, folder: str) -> list[str]:
        self._check()
        return sorted(k for k in self.data if k.startswith(folder + "/"))


class InMemoryStoreInventory:
    """Job folders, claims and temporary files, each with a modification time."""

    def __init__(self) -> None:
        self.job_files: dict[str, dict[str, float]] = {}  # job id -> file name -> mtime
        self.leases: dict[str, StoredClaim] = {}
        self.temps: dict[str, float] = {}
        self.deleted: list[str] = []

    def add_job(self, job_id: str, modified: float, record: bool = True) -> None:
        files = {"result.json": modified}
        if record:
            files["status.json"] = modified
        self.job_files[job_id] = files

    def add_claim(self, job_id: str, expires_at: float, modified: float | None = None) -> None:
        lease = Lease(job_id=job_id, owner="someone", expires_at=expires_at)
        self.leases[job_id] = StoredClaim(lease, expires_at if modified is None else modified)

    def jobs(self) -> Iterator[StoredJob]:
        for job_id, files in sorted(self.job_files.items()):
            yield StoredJob(job_id, files.get("status.json"), max(files.values()))

    def delete_job(self, job_id: str) -> int:
        self.deleted.append(f"job:{job_id}")
        return len(self.job_files.pop(job_id, {}))

    def claims(self) -> Iterator[StoredClaim]:
        yield from [self.leases[k] for k in sorted(self.leases)]

    def delete_claim(self, job_id: str, expired_before: float) -> bool:
        claim = self.leases.get(job_id)
        if claim is None or claim.lease.expires_at >= expired_before:
            return False
        del self.leases[job_id]
        self.deleted.append(f"claim:{job_id}")
        return True

    def temp_files(self, older_than: float) -> list[str]:
        return sorted(name for name, t in self.temps.items() if t < older_than)

    def delete_temp(self, name: str) -> None:
        self.temps.pop(name, None)
        self.deleted.append(f"temp:{name}")


class FakeQueueInspector:
    """Fixed figures; ``waiting`` is what ``peek`` returns, and each peek is recorded."""

    def __init__(self, figures: QueueFigures | None = None, age: float | None = None) -> None:
        self.current = figures or QueueFigures(visible=0, in_flight=0, delayed=0, dlq_visible=0)
        self.age = age
        self.waiting: list[WaitingJob] = []
        self.peeks = 0

    def figures(self) -> QueueFigures:
        return self.current

    def oldest_age_seconds(self) -> float | None:
        return self.age

    def peek(self, limit: int) -> list[WaitingJob]:
        self.peeks += 1
        return self.waiting[:limit]
