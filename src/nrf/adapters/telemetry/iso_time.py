"""Times for people and log tools: ISO 8601 in UTC, to the millisecond, beside the epoch.

The epoch seconds stay (dashboards and scripts already read them); the ISO text is what a
person on call reads and what log tools parse without being told the unit or the zone.
"""

from __future__ import annotations

from datetime import UTC, datetime


def iso_utc(epoch: float | None) -> str | None:
    """``2026-11-27T21:27:00.123Z`` for epoch seconds; None stays None."""
    if epoch is None:
        return None
    text = datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
    return text.removesuffix("+00:00") + "Z"
