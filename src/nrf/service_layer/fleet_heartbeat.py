"""Use case: write this worker's heartbeat record, so the fleet can be seen from the store.

A failed write is logged and skipped, never raised: the fleet view going stale for a while is
far better than a worker that stops taking jobs because S3 had a bad minute.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from attrs import frozen

from nrf import __version__
from nrf.domain.errors import NrfError
from nrf.domain.fleet import BundleStamp, WorkerBeat, WorkerState, beat_key, beat_to_json
from nrf.domain.ops_ports import OpsRecords
from nrf.domain.ports import Clock

log = logging.getLogger("nrf.fleet")


@frozen
class WorkerActivity:
    """What the worker is doing right now, as the heartbeat reports it."""

    state: WorkerState
    jobs_in_flight: int
    last_queue_contact: float | None


@frozen(kw_only=True)
class WorkerIdentity:
    """What does not change while the worker runs."""

    worker_id: str
    started_at: float
    bundle: BundleStamp
    interval_seconds: float
    nrf_version: str = __version__


class FleetHeartbeat:
    """One record per worker, rewritten every interval; the last one says ``stopped``."""

    def __init__(
        self,
        *,
        records: OpsRecords,
        clock: Clock,
        identity: WorkerIdentity,
        activity: Callable[[], WorkerActivity],
    ) -> None:
        self._records, self._clock = records, clock
        self._identity, self._activity = identity, activity

    def beat(self) -> WorkerBeat | None:
        """Write the current record; None when the write failed (logged)."""
        return self._write(self._activity())

    def stopped(self) -> WorkerBeat | None:
        """The final record of a clean exit: nothing in flight, and not live any more."""
        last = self._activity()
        return self._write(WorkerActivity(WorkerState.STOPPED, 0, last.last_queue_contact))

    def _write(self, activity: WorkerActivity) -> WorkerBeat | None:
        me = self._identity
        beat = WorkerBeat(
            worker_id=me.worker_id,
            state=activity.state,
            jobs_in_flight=activity.jobs_in_flight,
            started_at=me.started_at,
            written_at=self._clock.now(),
            nrf_version=me.nrf_version,
            bundle=me.bundle,
            last_queue_contact=activity.last_queue_contact,
            interval_seconds=me.interval_seconds,
        )
        try:
            self._records.put(beat_key(me.worker_id), beat_to_json(beat))
        except (NrfError, OSError, ValueError) as exc:
            log.warning(
                "fleet_heartbeat_failed", extra={"worker_id": me.worker_id, "error": str(exc)}
            )
            return None
        return beat
