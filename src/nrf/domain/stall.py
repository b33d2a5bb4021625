"""Stalls: messages waiting with no live worker; support is told once per stall, and when it ends.

A stall is kept as one record from the first run that sees it until the run that sees it end,
so "once per stall" survives any number of housekeeping runs, and a new stall after that is
told again. How long the queue has waited is the longer of the oldest message's age (when a
source can tell it) and how long housekeeping has watched this stall, so the alert still goes
where CloudWatch has no figure.
"""

from __future__ import annotations

import json
from enum import StrEnum

from attrs import evolve, frozen

STALL_KEY = ".ops/stall.json"


@frozen
class StallState:
    """A stall in progress: first seen (``since``) and when support was told, if yet."""

    since: float
    alerted_at: float | None = None

    @property
    def stall_id(self) -> str:
        return f"{self.since:.0f}"

    def waited(self, now: float, oldest_age: float | None) -> float:
        return max(now - self.since, oldest_age or 0.0)


class StallAction(StrEnum):
    NONE = "none"
    ALERT = "alert"  # tell support now: the stall passed the threshold
    CLEAR = "clear"  # tell support it is over (only for a stall they were told about)


@frozen
class StallDecision:
    state: StallState | None
    action: StallAction


def decide_stall(
    state: StallState | None,
    *,
    waiting: int,
    live_workers: int,
    oldest_age: float | None,
    now: float,
    threshold: float,
) -> StallDecision:
    """The next stall state and what to tell support."""
    if waiting == 0 or live_workers > 0:
        told = state is not None and state.alerted_at is not None
        return StallDecision(None, StallAction.CLEAR if told else StallAction.NONE)
    current = state or StallState(since=now - (oldest_age or 0.0))
    if current.alerted_at is None and current.waited(now, oldest_age) >= threshold:
        return StallDecision(evolve(current, alerted_at=now), StallAction.ALERT)
    return StallDecision(current, StallAction.NONE)


def stall_to_json(state: StallState) -> bytes:
    return json.dumps({"since": state.since, "alerted_at": state.alerted_at}).encode()


def stall_from_json(data: bytes) -> StallState:
    try:
        raw = json.loads(data)
        alerted = raw["alerted_at"]
        return StallState(float(raw["since"]), None if alerted is None else float(alerted))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError("not a stall record") from exc
