"""Ports: what the domain needs from the outside world, as typing.Protocol."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol, TypeVar

from nrf.domain.claims import Lease
from nrf.domain.health import HeartbeatSnapshot
from nrf.domain.job_request import IncomingJob, JobRequest
from nrf.domain.jobs import JobRecord, Notification, NotificationRecord, QueueMessage
from nrf.domain.model import Boundary, BundleInfo, LookupTables, SiteReferenceData
from nrf.domain.validation import RawFeature

_T = TypeVar("_T")
_R = TypeVar("_R")


class SiteMap(Protocol):
    """Calls ``fn`` on every item, maybe in several processes, yielding results in item order.

    The builtin ``map`` is one.
    """

    def __call__(self, fn: Callable[[_T], _R], items: Iterable[_T], /) -> Iterator[_R]: ...


class BoundaryDataRepository(Protocol):
    """Reference data for the calculation: reads only what a site touches."""

    def info(self) -> BundleInfo:
        """Name, version and SHA-256 of the bundle."""
        ...

    def lookups(self) -> LookupTables:
        """Permits, occupancy rates and levy rates."""
        ...

    def reference_for(self, boundary: Boundary) -> SiteReferenceData:
        """Every reference polygon whose bounding box meets the boundary's.

        The polygons are valid: a repository refuses (BrokenBundle) rather than return an
        invalid one, so the calculation does not check them again on every site.
        """
        ...

    def references_for(self, boundaries: Sequence[Boundary]) -> list[SiteReferenceData]:
        """``reference_for`` of each boundary, in order, read as one batch."""
        ...


class JobQueue(Protocol):
    """Where jobs come from; raises QueueFatalError or QueueTransientError."""

    def receive(
        self, max_messages: int, wait_seconds: int, visibility_timeout: int | None
    ) -> list[QueueMessage]:
        """Long-poll for up to ``max_messages``; an empty list when none arrive in time."""
        ...

    def delete(self, message: QueueMessage) -> None:
        """Acknowledge a message; a handle that is already gone is not an error."""
        ...

    def change_visibility(self, message: QueueMessage, seconds: int) -> None:
        """Hide the message for ``seconds`` more from now (0 makes it visible at once)."""
        ...

    def send(self, body: str) -> str:
        """Enqueue a job; returns the message id."""
        ...


class ResultStore(Protocol):
    """Finished jobs: files first, then the record, so a record means complete."""

    def record(self, job_id: str) -> JobRecord | None:
        """The job's record, or None when the job has not finished."""
        ...

    def save(self, job_id: str, files: Mapping[str, bytes], record: JobRecord) -> str:
        """Store the files and then the record; returns where (a URI or a path)."""
        ...

    def sweep_temporaries(self, now: float, older_than: float) -> int:
        """Delete partial writes left by killed writers, untouched for ``older_than`` seconds."""
        ...


class JobClaims(Protocol):
    """Per-job leases, so two copies of one job never run at once."""

    def claim(self, job_id: str, owner: str, now: float, lease_seconds: float) -> Lease:
        """Atomically take (or renew) the job's claim unless another owner's lease is live.

        Returns the lease that holds after the call: ours when granted, else the holder's.
        """
        ...

    def release(self, job_id: str, owner: str, now: float) -> None:
        """End ``owner``'s lease now (kept on record, so a later claim is not ``first``)."""
        ...


class JobInbox(Protocol):
    """Jobs from a queue, each message read once at the edge; acknowledged per job."""

    def receive(
        self, max_messages: int, wait_seconds: int, visibility_timeout: int | None
    ) -> list[IncomingJob]: ...

    def delete(self, job: IncomingJob) -> None: ...

    def change_visibility(self, job: IncomingJob, seconds: int) -> None: ...


class Notifier(Protocol):
    """Sends emails; never raises for provider errors, returns what happened instead."""

    def send(self, notification: Notification) -> NotificationRecord: ...

    def sent_before(self, notification: Notification) -> bool | None:
        """Whether the provider already has this email (kind, recipient, reference).

        None when the provider cannot tell; raises NotificationFailed when the lookup failed.
        """
        ...


class HeartbeatStore(Protocol):
    """The worker's shared liveness state, written by the worker, read by /health."""

    def set_status(self, status: int) -> None: ...

    def beat(self, now: float) -> None: ...

    def start_job(self, job_id: str, expected_seconds: float, now: float) -> None: ...

    def end_job(self, now: float) -> None: ...

    def set_ready(self, bundle_loaded: bool, queue_reachable: bool) -> None: ...

    def set_draining(self, draining: bool) -> None: ...

    def set_bundle_version(self, version: str) -> None: ...

    def snapshot(self) -> HeartbeatSnapshot: ...


class Clock(Protocol):
    """Wall-clock time as epoch seconds."""

    def now(self) -> float: ...


class Sleeper(Protocol):
    """Waiting, injected so retries can be tested without real sleeps."""

    def sleep(self, seconds: float) -> None: ...


class JobBoundarySource(Protocol):
    """Turns a job's boundary (inline GeoJSON or an s3:// object) into raw features."""

    def features(self, request: JobRequest) -> list[RawFeature]:
        """Raise InvalidInput for anything that can never be read; other errors are transient."""
        ...


class ResultFiles(Protocol):
    """Reads back a finished job's stored files (result.json, result.html...) by name."""

    def read(self, job_id: str, name: str) -> bytes | None:
        """The file's bytes, or None when the job or the file does not exist."""
        ...
