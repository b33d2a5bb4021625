"""Use case: gather the fleet's status from the queue, the heartbeats and the result store.

It only reads. "Finished in the last hour" looks at the records written in that hour (the
listing says when), so it reads a handful of records, not 90 days of them.
"""

from __future__ import annotations

import logging

from nrf.domain.fleet import WORKERS_FOLDER, WorkerBeat, beat_from_json, fleet_view
from nrf.domain.fleet_status import FleetStatus, StuckJob
from nrf.domain.jobs import JobStatus
from nrf.domain.ops_ports import OpsRecords, QueueInspector, StoreInventory
from nrf.domain.ports import Clock, ResultStore
from nrf.domain.result_port import UNDELIVERED_FOLDER
from nrf.domain.stall import STALL_KEY, stall_from_json

log = logging.getLogger("nrf.status")

HOUR = 3600.0


def read_beats(records: OpsRecords) -> list[WorkerBeat]:
    """Every readable heartbeat record; a torn or foreign one is skipped (and logged)."""
    beats = []
    for key in records.keys(WORKERS_FOLDER):
        data = records.get(key)
        if data is None:
            continue  # deleted between the listing and the read
        try:
            beats.append(beat_from_json(data))
        except ValueError:
            log.warning("heartbeat_unreadable", extra={"key": key})
    return beats


class ReadFleetStatus:
    """Queue figures, workers, recent outcomes and stuck claims, as of the clock's now."""

    def __init__(
        self,
        *,
        queue: QueueInspector,
        records: OpsRecords,
        inventory: StoreInventory,
        store: ResultStore,
        clock: Clock,
        stuck_after_seconds: float = 3600.0,
    ) -> None:
        self._queue, self._records, self._inventory = queue, records, inventory
        self._store, self._clock, self._stuck_after = store, clock, stuck_after_seconds

    def __call__(self) -> FleetStatus:
        now = self._clock.now()
        figures = self._queue.figures()
        age, source = self._oldest_age(now, figures.visible + figures.in_flight)
        finished = failed = 0
        with_record: set[str] = set()
        for job in self._inventory.jobs():
            if job.record_modified is None:
                continue
            with_record.add(job.job_id)
            if job.record_modified < now - HOUR:
                continue
            record = self._store.record(job.job_id)
            if record is None or record.finished_at < now - HOUR:
                continue
            finished += record.status is JobStatus.SUCCEEDED
            failed += record.status is JobStatus.FAILED
        stuck = tuple(
            StuckJob(c.lease.job_id, c.lease.expires_at)
            for c in self._inventory.claims()
            if c.lease.expires_at < now - self._stuck_after and c.lease.job_id not in with_record
        )
        return FleetStatus(
            checked_at=now,
            queue=figures,
            oldest_age_seconds=age,
            oldest_age_source=source,
            fleet=fleet_view(read_beats(self._records), now),
            finished_last_hour=finished,
            failed_last_hour=failed,
            stuck=stuck,
            undelivered=tuple(
                key.rsplit("/", 1)[-1].removesuffix(".json")
                for key in self._records.keys(UNDELIVERED_FOLDER)
            ),
        )

    def _oldest_age(self, now: float, waiting: int) -> tuple[float | None, str | None]:
        """CloudWatch's figure; else, while a stall is being watched, how long it has been."""
        age = self._queue.oldest_age_seconds()
        if age is not None:
            return age, "cloudwatch"
        data = self._records.get(STALL_KEY) if waiting else None
        if data is None:
            return None, None
        try:
            return now - stall_from_json(data).since, "stall_watch"
        except ValueError:
            return None, None
