"""Worker liveness and readiness: the shared snapshot and the pure policy over it."""

from __future__ import annotations

from enum import IntEnum

from attrs import frozen


class WorkerStatus(IntEnum):
    """The worker's state as kept in shared memory (an int there)."""

    ERROR = -1
    STOPPED = 0
    RUNNING = 1
    STARTING = 2  # alive and getting the bundle (a download may take minutes): not ready yet


DEFAULT_HEARTBEAT_TIMEOUT = 180.0
DEFAULT_TASK_TIMEOUT_BUFFER = 1.5


@frozen(kw_only=True)
class HeartbeatSnapshot:
    """A consistent copy of the worker's shared state; times are epoch seconds."""

    status: int = WorkerStatus.STOPPED
    last_heartbeat: float = 0.0
    job_id: str | None = None
    job_started_at: float | None = None
    expected_seconds: float | None = None
    task_started_at: float = 0.0
    bundle_loaded: bool = False
    queue_reachable: bool = False
    draining: bool = False
    bundle_version: str = ""

    @property
    def job_in_progress(self) -> bool:
        return self.job_id is not None


@frozen(kw_only=True)
class HealthVerdict:
    """Whether ``/health`` should answer 200, and the small facts it may reveal."""

    healthy: bool
    reason: str
    heartbeat_age: float
    job_in_progress: bool


@frozen
class ReadinessVerdict:
    """Whether ``/ready`` should answer 200; ``reason`` is a stable code."""

    ready: bool
    reason: str
    bundle_version: str = ""


def heartbeat_limit(
    snapshot: HeartbeatSnapshot,
    heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT,
    task_timeout_buffer: float = DEFAULT_TASK_TIMEOUT_BUFFER,
) -> float:
    """The oldest a heartbeat may be: longer while a job runs, never shorter than idle."""
    if snapshot.job_id is None or snapshot.expected_seconds is None:
        return heartbeat_timeout
    return max(heartbeat_timeout, snapshot.expected_seconds * task_timeout_buffer)


def evaluate_health(
    snapshot: HeartbeatSnapshot,
    now: float,
    heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT,
    task_timeout_buffer: float = DEFAULT_TASK_TIMEOUT_BUFFER,
) -> HealthVerdict:
    """Healthy when the worker says it is running (or starting) and its heartbeat is fresh."""
    # A clock step backwards must not produce a negative age.
    age = max(0.0, now - snapshot.last_heartbeat)
    busy = snapshot.job_in_progress

    def verdict(healthy: bool, reason: str) -> HealthVerdict:
        return HealthVerdict(
            healthy=healthy, reason=reason, heartbeat_age=age, job_in_progress=busy
        )

    if snapshot.status == WorkerStatus.ERROR:
        return verdict(False, "worker_error")
    if snapshot.status not in (WorkerStatus.RUNNING, WorkerStatus.STARTING):
        return verdict(False, "worker_not_running")
    if age >= heartbeat_limit(snapshot, heartbeat_timeout, task_timeout_buffer):
        return verdict(False, "job_heartbeat_stale" if busy else "heartbeat_stale")
    return verdict(True, "starting" if snapshot.status == WorkerStatus.STARTING else "ok")


def evaluate_readiness(snapshot: HeartbeatSnapshot) -> ReadinessVerdict:
    """Ready only when running, the bundle is loaded, the queue answered and not draining."""
    version = snapshot.bundle_version
    if snapshot.status == WorkerStatus.STARTING:
        return ReadinessVerdict(False, "starting", version)
    if snapshot.status != WorkerStatus.RUNNING:
        return ReadinessVerdict(False, "worker_not_running", version)
    if snapshot.draining:
        return ReadinessVerdict(False, "draining", version)
    if not snapshot.bundle_loaded:
        return ReadinessVerdict(False, "bundle_not_loaded", version)
    if not snapshot.queue_reachable:
        return ReadinessVerdict(False, "queue_unreachable", version)
    return ReadinessVerdict(True, "ready", version)
