"""FixedDayClock: noon UTC of one day, whenever asked; prices a worker's quotes on that day.

Only the quote date reads it (``NRF_TEST_QUOTE_DATE``): leases, visibility and timings keep
the real clock, so a test pins the levy's day without stopping time for everything else.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time


class FixedDayClock:
    """Epoch seconds of 12:00 UTC on ``day``, every time."""

    def __init__(self, day: date) -> None:
        self._moment = datetime.combine(day, time(12, 0), tzinfo=UTC).timestamp()

    def now(self) -> float:
        return self._moment
