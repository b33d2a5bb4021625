"""Use case: delete what is past keeping (see nrf.domain.housekeeping), or only say so."""

from __future__ import annotations

import logging

from attrs import frozen

from nrf.domain.housekeeping import (
    ORPHAN_CLAIM_SECONDS,
    TEMP_FILE_SECONDS,
    HousekeepingPlan,
    plan_housekeeping,
)
from nrf.domain.ops_ports import OpsRecords, StoreInventory
from nrf.domain.ports import Clock
from nrf.domain.result_port import UNDELIVERED_FOLDER
from nrf.service_layer.fleet_status import read_beats
from nrf.service_layer.sent_once import NOTICES_FOLDER, notice_time

log = logging.getLogger("nrf.housekeep")


@frozen
class HousekeepingReport:
    plan: HousekeepingPlan
    dry_run: bool
    counts: dict[str, int]  # what this run deleted (a dry run: what it would)


class Housekeep:
    """Plan from fresh listings, then delete; every delete tolerates a concurrent run."""

    def __init__(
        self, *, inventory: StoreInventory, records: OpsRecords, clock: Clock, retention_days: int
    ) -> None:
        self._inventory, self._records = inventory, records
        self._clock, self._retention_days = clock, retention_days

    def __call__(self, dry_run: bool = False) -> HousekeepingReport:
        now = self._clock.now()
        plan = plan_housekeeping(
            jobs=list(self._inventory.jobs()),
            claims=list(self._inventory.claims()),
            beats=read_beats(self._records),
            temp_files=self._inventory.temp_files(now - TEMP_FILE_SECONDS),
            notices=self._notices(),
            now=now,
            retention_days=self._retention_days,
        )
        if dry_run:
            return HousekeepingReport(plan, True, plan.counts())
        jobs = sum(1 for job_id in plan.jobs if self._inventory.delete_job(job_id) > 0)
        claims = sum(
            1
            for job_id in plan.claims
            # Re-checked against the same margin at delete time, under the claim's own guard.
            if self._inventory.delete_claim(job_id, now - ORPHAN_CLAIM_SECONDS)
        )
        for key in plan.worker_records:
            self._records.delete(key)
        for name in plan.temp_files:
            self._inventory.delete_temp(name)
        for key in plan.notices:
            self._records.delete(key)
        counts = {**plan.counts(), "JobsDeleted": jobs, "ClaimsDeleted": claims}
        return HousekeepingReport(plan, False, counts)

    def _notices(self) -> list[tuple[str, float]]:
        found = []
        keys = self._records.keys(NOTICES_FOLDER) + self._records.keys(UNDELIVERED_FOLDER)
        for key in keys:
            data = self._records.get(key)
            at = None if data is None else notice_time(data)
            if at is not None:
                found.append((key, at))
        return found
