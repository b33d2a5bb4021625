"""A token bucket: ``burst`` requests at once, then ``per_second`` on average.

A client that stays within its rate never waits; one that sends faster is told how long until
its next request would be let in (``Retry-After``), rather than being queued, so a flood costs
the server a refusal, not a thread. The caller passes the time in: the bucket reads no clock.
"""

from __future__ import annotations

from attrs import frozen


@frozen(kw_only=True)
class Rate:
    """``per_second`` tokens are added each second, up to ``burst``; 0 per second is no limit."""

    per_second: float
    burst: int

    @property
    def unlimited(self) -> bool:
        return self.per_second <= 0


@frozen(kw_only=True)
class Bucket:
    """The tokens left at time ``at`` (seconds, any monotonic origin)."""

    tokens: float
    at: float


def take(bucket: Bucket | None, rate: Rate, now: float) -> tuple[Bucket, float]:
    """Spend one token: the bucket afterwards and 0.0, or the bucket unspent and how many
    seconds until a token will be there. A new client (None) starts with a full bucket."""
    if bucket is None:
        tokens = float(rate.burst)
    else:
        elapsed = max(0.0, now - bucket.at)  # a clock that steps back never adds tokens
        tokens = min(float(rate.burst), bucket.tokens + elapsed * rate.per_second)
    if tokens >= 1.0:
        return Bucket(tokens=tokens - 1.0, at=now), 0.0
    return Bucket(tokens=tokens, at=now), (1.0 - tokens) / rate.per_second
