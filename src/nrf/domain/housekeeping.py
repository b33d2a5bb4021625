"""What housekeeping deletes: a pure plan from listings, so a dry run and a real run agree.

Every rule leaves a margin wider than any process that could still be using the thing:
- a job past the retention (by its record's last write; a folder without a record by its
  newest file);
- a claim with no job folder behind it, once its lease ended longer ago than SQS keeps a
  message (14 days) plus a day: no copy of the job can still arrive, so forgetting the claim
  cannot let a later receive count as a first claim (and send "started" twice);
- a worker record that is not live and was last written over a day ago: long enough for a
  person to see a crashed worker as stale in `nrf status`;
- a temporary file untouched for an hour: no writer takes that long over one file;
- a sent-once notice (stall, delay) or undelivered-report index entry past the retention.
Two runs at once plan the same deletions; every delete is idempotent.
"""

from __future__ import annotations

from attrs import frozen

from nrf.domain.fleet import WorkerBeat, beat_key
from nrf.domain.ops_ports import StoredClaim, StoredJob

DAY = 86_400.0
SQS_MAX_RETENTION_SECONDS = 14 * DAY
ORPHAN_CLAIM_SECONDS = SQS_MAX_RETENTION_SECONDS + DAY
STALE_WORKER_RECORD_SECONDS = DAY
TEMP_FILE_SECONDS = 3_600.0


@frozen(kw_only=True)
class HousekeepingPlan:
    """What to delete, by kind."""

    jobs: tuple[str, ...]
    claims: tuple[str, ...]  # job ids
    worker_records: tuple[str, ...]  # ops record keys
    temp_files: tuple[str, ...]
    notices: tuple[str, ...] = ()  # ops record keys

    def counts(self) -> dict[str, int]:
        return {
            "JobsDeleted": len(self.jobs),
            "ClaimsDeleted": len(self.claims),
            "WorkerRecordsDeleted": len(self.worker_records),
            "TempFilesDeleted": len(self.temp_files),
            "NoticesDeleted": len(self.notices),
        }


def plan_housekeeping(
    *,
    jobs: list[StoredJob],
    claims: list[StoredClaim],
    beats: list[WorkerBeat],
    temp_files: list[str],
    notices: list[tuple[str, float]],
    now: float,
    retention_days: int,
) -> HousekeepingPlan:
    cutoff = now - retention_days * DAY
    expired = [j.job_id for j in jobs if _last_written(j) < cutoff]
    kept = {j.job_id for j in jobs} - set(expired)
    orphans = [
        c.lease.job_id
        for c in claims
        if c.lease.job_id not in kept and c.lease.expires_at < now - ORPHAN_CLAIM_SECONDS
    ]
    stale = [
        beat_key(b.worker_id)
        for b in beats
        if not b.is_live(now) and b.written_at < now - STALE_WORKER_RECORD_SECONDS
    ]
    old_notices = [key for key, at in notices if at < cutoff]
    return HousekeepingPlan(
        jobs=tuple(sorted(expired)),
        claims=tuple(sorted(orphans)),
        worker_records=tuple(sorted(stale)),
        temp_files=tuple(sorted(temp_files)),
        notices=tuple(sorted(old_notices)),
    )


def _last_written(job: StoredJob) -> float:
    return job.record_modified if job.record_modified is not None else job.newest_modified
