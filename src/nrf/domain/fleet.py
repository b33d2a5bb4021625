"""Fleet heartbeats: a worker is live while its record is younger than 3 of its own intervals.

Three intervals, not one: a single slow write (an S3 hiccup, a long GC pause) must not make a
healthy worker look dead. The interval travels in the record, so `nrf status` judges every
worker by the interval it actually writes at, whatever its own settings say.
"""

from __future__ import annotations

import json
from enum import StrEnum

from attrs import frozen

LIVE_INTERVALS = 3
DEFAULT_INTERVAL_SECONDS = 30.0
WORKERS_FOLDER = ".workers"


class WorkerState(StrEnum):
    """What a worker said about itself when it last wrote."""

    RUNNING = "running"
    DRAINING = "draining"
    STOPPED = "stopped"  # written once, on a clean exit
    ERROR = "error"


@frozen
class BundleStamp:
    """Which reference bundle a worker assesses with."""

    name: str
    version: str
    sha256: str

    def label(self) -> str:
        return f"{self.name} {self.version} ({self.sha256[:12]})"


@frozen(kw_only=True)
class WorkerBeat:
    """One worker's heartbeat record: ``<prefix>/.workers/<worker id>.json``."""

    worker_id: str
    state: WorkerState
    jobs_in_flight: int
    started_at: float
    written_at: float
    nrf_version: str
    bundle: BundleStamp
    last_queue_contact: float | None
    interval_seconds: float = DEFAULT_INTERVAL_SECONDS

    def age(self, now: float) -> float:
        return max(0.0, now - self.written_at)

    def is_live(self, now: float) -> bool:
        """Not stopped, and written within the last 3 of its intervals."""
        fresh = self.age(now) < LIVE_INTERVALS * self.interval_seconds
        return fresh and self.state is not WorkerState.STOPPED


def beat_key(worker_id: str) -> str:
    return f"{WORKERS_FOLDER}/{worker_id}.json"


def beat_to_json(beat: WorkerBeat) -> bytes:
    stamp = beat.bundle
    bundle = {"name": stamp.name, "version": stamp.version, "sha256": stamp.sha256}
    fields = {
        "worker_id": beat.worker_id,
        "status": str(beat.state),
        "jobs_in_flight": beat.jobs_in_flight,
        "started_at": beat.started_at,
        "written_at": beat.written_at,
        "nrf_version": beat.nrf_version,
        "bundle": bundle,
        "last_queue_contact": beat.last_queue_contact,
        "interval_seconds": beat.interval_seconds,
    }
    return json.dumps(fields, sort_keys=True).encode()


def beat_from_json(data: bytes) -> WorkerBeat:
    """Parse what :func:`beat_to_json` wrote; raises ValueError for anything else."""
    try:
        raw = json.loads(data)
        bundle = raw["bundle"]
        contact = raw["last_queue_contact"]
        return WorkerBeat(
            worker_id=str(raw["worker_id"]),
            state=WorkerState(raw["status"]),
            jobs_in_flight=int(raw["jobs_in_flight"]),
            started_at=float(raw["started_at"]),
            written_at=float(raw["written_at"]),
            nrf_version=str(raw["nrf_version"]),
            bundle=BundleStamp(str(bundle["name"]), str(bundle["version"]), str(bundle["sha256"])),
            last_queue_contact=None if contact is None else float(contact),
            interval_seconds=float(raw["interval_seconds"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError("not a worker heartbeat") from exc


@frozen
class FleetView:
    """Every heartbeat record sorted into live, stale (silent, not stopped) and stopped."""

    live: tuple[WorkerBeat, ...]
    stale: tuple[WorkerBeat, ...]
    stopped: tuple[WorkerBeat, ...]

    @property
    def bundles(self) -> tuple[BundleStamp, ...]:
        """The distinct bundles of the live workers; more than one is a mixed fleet."""
        return tuple(sorted({b.bundle for b in self.live}, key=lambda s: s.label()))


def fleet_view(beats: list[WorkerBeat], now: float) -> FleetView:
    ordered = sorted(beats, key=lambda b: b.worker_id)
    live = tuple(b for b in ordered if b.is_live(now))
    stopped = tuple(b for b in ordered if b.state is WorkerState.STOPPED)
    stale = tuple(b for b in ordered if b not in live and b not in stopped)
    return FleetView(live, stale, stopped)
