"""Ports for operating the fleet: kept apart from ports.py, which is the job path's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from attrs import frozen

from nrf.domain.claims import Lease


class OpsRecords(Protocol):
    """Small records kept beside the results (heartbeats, stall state, sent-once notices).

    Keys are relative to the result store's root or prefix, e.g. ``.workers/w1.json``.
    """

    def put(self, key: str, data: bytes) -> None: ...

    def put_new(self, key: str, data: bytes) -> bool:
        """Create the record only if it does not exist; False when someone else has it."""
        ...

    def get(self, key: str) -> bytes | None: ...

    def delete(self, key: str) -> None:
        """Remove the record; one that is already gone is not an error."""
        ...

    def keys(self, folder: str) -> list[str]:
        """The keys directly under ``folder`` (e.g. ``.workers``)."""
        ...


@frozen
class StoredJob:
    """A job folder as listed: when its record (``status.json``) and its newest file changed."""

    job_id: str
    record_modified: float | None  # None: files but no record (a crash before the record)
    newest_modified: float


@frozen
class StoredClaim:
    """A job's claim as listed, with when it was last written."""

    lease: Lease
    modified: float


class StoreInventory(Protocol):
    """Listing and deleting across the whole result store, for status and housekeeping."""

    def jobs(self) -> Iterator[StoredJob]: ...

    def delete_job(self, job_id: str) -> int:
        """Delete the job's files, the record first (half-deleted never looks finished).

        Returns how many files went; a job already gone returns 0.
        """
        ...

    def claims(self) -> Iterator[StoredClaim]: ...

    def delete_claim(self, job_id: str, expired_before: float) -> bool:
        """Delete the claim only if its lease still ended before ``expired_before``."""
        ...

    def temp_files(self, older_than: float) -> list[str]:
        """Leftover temporary files (a writer killed mid-write) last changed before then."""
        ...

    def delete_temp(self, name: str) -> None: ...


@frozen(kw_only=True)
class QueueFigures:
    """What SQS says about the queue and its DLQ right now."""

    visible: int
    in_flight: int
    delayed: int
    dlq_visible: int


@frozen
class WaitingJob:
    """A job seen waiting on the queue: who asked for it and when it was sent."""

    job_id: str
    email: str | None
    sent_at: float | None


class QueueInspector(Protocol):
    """Reads the queue's attributes; ``peek`` looks at waiting messages without taking them."""

    def figures(self) -> QueueFigures: ...

    def oldest_age_seconds(self) -> float | None:
        """The age of the oldest message, or None where no source can tell (no CloudWatch)."""
        ...

    def peek(self, limit: int) -> list[WaitingJob]:
        """The jobs of up to ``limit`` waiting messages, made visible again at once.

        Costs each one a receive (ApproximateReceiveCount + 1): use sparingly.
        """
        ...
