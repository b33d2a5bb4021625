"""What the queue does with a processed message, and the one back-off for transient failures."""

from __future__ import annotations

import random
from enum import StrEnum

from attrs import define, field, frozen


class OutcomeStatus(StrEnum):
    """How one delivery of a job ended (the job itself may have ended earlier)."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    ALREADY_FINISHED = "already_finished"
    CLAIMED_ELSEWHERE = "claimed_elsewhere"  # an earlier receive of this message holds it
    DUPLICATE = "duplicate"  # another message holds the job: this copy is deleted
    RETRY = "retry"


@frozen(kw_only=True)
class JobOutcome:
    """What the queue should do with the message: delete it, or retry after ``retry_after``."""

    job_id: str | None
    status: OutcomeStatus
    delete: bool
    retry_after: int = 0
    error_codes: tuple[str, ...] = ()


def retry_delay(receive_count: int, base: int = 30, cap: int = 900, jitter: float = 0.0) -> int:
    """Visibility for a transient failure: base × 2^(n−1), capped, plus up to ``jitter`` share."""
    delay = min(cap, base * 2 ** max(0, receive_count - 1))
    return int(min(cap, delay * (1 + jitter)))


@define
class RetryPolicy:
    """The one place a retry delay is decided: ``NRF_RETRY_BASE_SECONDS`` doubling per receive.

    Up to 20 % jitter, so jobs that failed together do not all come back together.
    """

    base_seconds: int = 30
    cap_seconds: int = 900
    rng: random.Random = field(factory=random.Random)

    def delay(self, receive_count: int) -> int:
        return retry_delay(
            receive_count,
            base=self.base_seconds,
            cap=self.cap_seconds,
            jitter=self.rng.random() * 0.2,
        )

    def outcome(self, job_id: str | None, receive_count: int, code: str) -> JobOutcome:
        return JobOutcome(
            job_id=job_id,
            status=OutcomeStatus.RETRY,
            delete=False,
            retry_after=self.delay(receive_count),
            error_codes=(code,),
        )
