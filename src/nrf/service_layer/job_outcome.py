"""What the queue does with a processed message, and the back-off for transient failures."""

from __future__ import annotations

from attrs import frozen


@frozen
class JobOutcome:
    """What the queue should do with the message: delete it, or retry after ``retry_after``."""

    job_id: str | None
    status: str  # succeeded, failed, already_finished, claimed_elsewhere, retry
    delete: bool
    retry_after: int = 0
    error_codes: tuple[str, ...] = ()


def retry_delay(receive_count: int, base: int = 30, cap: int = 900, jitter: float = 0.0) -> int:
    """Visibility for a transient failure: base × 2^(n−1), capped, plus up to ``jitter`` share."""
    delay = min(cap, base * 2 ** max(0, receive_count - 1))
    return int(min(cap, delay * (1 + jitter)))
