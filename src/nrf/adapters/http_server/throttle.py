"""Rate limits per client address and per API key: 429 with ``Retry-After`` past the bucket.

Each server process keeps its own buckets (no shared state, no lock across processes), so a
client spread over the API's processes may get up to that many times the rate; a limit is a
guard against floods, not a quota. The table holds at most ``max_clients`` buckets, dropping
the one unused longest: a client dropped that way starts again with a full bucket.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

from nrf.domain.rate_limit import Bucket, Rate, take


class RateLimiter:
    """Token buckets by name (``client:1.2.3.4``, ``client:2001:db8::/64``, ``key:2``)."""

    def __init__(
        self,
        rate: Rate,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = 10_000,
    ) -> None:
        self.rate, self._clock, self._max = rate, clock, max_clients
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()

    def retry_after(self, name: str) -> int | None:
        """Spend a token of ``name``: None when let in, else whole seconds to wait (at least 1)."""
        if self.rate.unlimited:
            return None
        bucket, wait = take(self._buckets.pop(name, None), self.rate, self._clock())
        self._buckets[name] = bucket
        while len(self._buckets) > self._max:
            self._buckets.popitem(last=False)
        return None if wait == 0.0 else max(1, math.ceil(wait))
