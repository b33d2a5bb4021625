"""Per-job claims: a lease that keeps two copies of one job from running at once."""

from __future__ import annotations

import json
import math

from attrs import frozen


@frozen(kw_only=True)
class Lease:
    """Who holds a job's claim and until when (epoch seconds)."""

    job_id: str
    owner: str
    expires_at: float
    # No claim existed before this one: the job was never started by anyone.
    first: bool = False

    def held_by(self, owner: str) -> bool:
        return self.owner == owner

    def held_by_message(self, message_id: str) -> bool:
        """Whether the holder is a receive of that message (owner: ``<message id>/<digest>``)."""
        return self.owner.split("/", 1)[0] == message_id

    def seconds_left(self, now: float) -> int:
        """Whole seconds until the lease runs out, at least 1 (a retry delay)."""
        return max(1, math.ceil(self.expires_at - now))


def lease_to_json(lease: Lease) -> bytes:
    fields = {"job_id": lease.job_id, "owner": lease.owner, "expires_at": lease.expires_at}
    return json.dumps(fields).encode()


def lease_from_json(data: bytes) -> Lease:
    """Parse what :func:`lease_to_json` wrote; raises ValueError for anything else."""
    try:
        raw = json.loads(data)
        return Lease(
            job_id=str(raw["job_id"]), owner=str(raw["owner"]), expires_at=float(raw["expires_at"])
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError("not a claim") from exc


def next_lease(
    current: Lease | None, job_id: str, owner: str, now: float, lease_seconds: float
) -> Lease | None:
    """The lease to write over ``current``, or None when another owner's live lease stands."""
    if current is None:
        return Lease(job_id=job_id, owner=owner, expires_at=now + lease_seconds, first=True)
    if current.owner == owner or current.expires_at <= now:
        return Lease(job_id=job_id, owner=owner, expires_at=now + lease_seconds)
    return None
