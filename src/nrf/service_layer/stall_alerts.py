"""Use case: nobody consuming the queue → tell support once per stall, and when it clears.

When the alert goes, the waiting messages are looked at once (each costs one receive, see
QueueInspector.peek) and every requester whose job has waited past the threshold is told
their quote is delayed, once per job. Jobs that arrive later in the same stall are not
looked at again: every look would cost each waiting message another receive, and enough of
those would dead-letter the very jobs we are worried about.
"""

from __future__ import annotations

import logging

from attrs import frozen

from nrf.domain.jobs import Notification, NotificationKind
from nrf.domain.ops_ports import OpsRecords, QueueInspector
from nrf.domain.ports import Clock
from nrf.domain.stall import (
    STALL_KEY,
    StallAction,
    StallDecision,
    StallState,
    decide_stall,
    stall_from_json,
    stall_to_json,
)
from nrf.service_layer.sent_once import SentOnce

log = logging.getLogger("nrf.housekeep")

PEEK_LIMIT = 500


@frozen(kw_only=True)
class StallReport:
    action: StallAction
    waiting: int
    stalled_for: float | None  # seconds, while a stall is on
    requesters_told: int = 0


class WatchForStalls:
    """One look per housekeeping run; the stall's record carries it from run to run."""

    def __init__(
        self,
        *,
        queue: QueueInspector,
        records: OpsRecords,
        once: SentOnce,
        clock: Clock,
        support_email: str | None,
        threshold_seconds: float,
    ) -> None:
        self._queue, self._records, self._clock = queue, records, clock
        self._support, self._threshold = support_email, threshold_seconds
        self._once = once

    def __call__(self, live_workers: int, dry_run: bool = False) -> StallReport:
        now = self._clock.now()
        figures = self._queue.figures()
        waiting = figures.visible + figures.in_flight
        age = self._queue.oldest_age_seconds() if waiting else None
        state = self._read()

        def decide(current: StallState | None) -> StallDecision:
            return decide_stall(
                current,
                waiting=waiting,
                live_workers=live_workers,
                oldest_age=age,
                now=now,
                threshold=self._threshold,
            )

        decision = decide(state)
        # The first run to see the stall fixes when it began, and so its identity.
        new = decision.state if state is None and not dry_run else None
        if new is not None and not self._records.put_new(STALL_KEY, stall_to_json(new)):
            state = self._read()
            decision = decide(state)
        stalled_for = decision.state.waited(now, age) if decision.state else None
        report = StallReport(action=decision.action, waiting=waiting, stalled_for=stalled_for)
        if dry_run:
            return report
        if decision.action is StallAction.ALERT and decision.state is not None:
            told = self._alert(decision.state, waiting, now)
            self._records.put(STALL_KEY, stall_to_json(decision.state))
            return StallReport(
                action=decision.action,
                waiting=waiting,
                stalled_for=stalled_for,
                requesters_told=told,
            )
        if decision.action is StallAction.CLEAR and state is not None:
            self._tell_support(
                f"stall-{state.stall_id}.clear",
                "queue_stall_cleared",
                "workers are consuming the queue again",
            )
        if decision.state is None and state is not None:
            self._records.delete(STALL_KEY)
        return report

    def _read(self) -> StallState | None:
        data = self._records.get(STALL_KEY)
        try:
            return None if data is None else stall_from_json(data)
        except ValueError:
            return None

    def _alert(self, state: StallState, waiting: int, now: float) -> int:
        sentence = (
            f"{waiting} message(s) have waited {state.waited(now, None):.0f} s or more "
            "with no live worker: is the service running?"
        )
        log.error("queue_stalled", extra={"waiting": waiting, "since": state.since})
        self._tell_support(f"stall-{state.stall_id}.alert", "queue_stalled", sentence)
        told = 0
        for job in self._queue.peek(PEEK_LIMIT):
            if not job.email or job.sent_at is None or now - job.sent_at < self._threshold:
                continue
            personal = {
                "job_reference": job.job_id,
                "waited_minutes": f"{(now - job.sent_at) / 60:.0f}",
            }
            notice = Notification(
                kind=NotificationKind.DELAYED,
                recipient=job.email,
                job_id=job.job_id,
                personalisation=personal,
                reference=job.job_id,
            )
            sent = self._once.send(f"{job.job_id}.delayed", notice)
            told += sent is not None and sent.sent
        return told

    def _tell_support(self, name: str, code: str, sentence: str) -> None:
        if not self._support:
            log.warning("stall_unreported", extra={"code": code, "reason": sentence})
            return
        personal = {"job_reference": "queue", "error_codes": code, "error_message": sentence}
        notice = Notification(
            kind=NotificationKind.QUEUE_STALLED,
            recipient=self._support,
            job_id=code,
            personalisation=personal,
            reference=name,
        )
        self._once.send(name, notice)
