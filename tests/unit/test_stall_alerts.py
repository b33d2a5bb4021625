"""Stall alerts: support told once per stall and when it clears; each late requester once."""

from __future__ import annotations

from fakes import FakeClock, FakeNotifier
from nrf.adapters.environment.settings import WorkerSettings
from nrf.domain.jobs import NotificationKind
from nrf.domain.ops_ports import QueueFigures, WaitingJob
from nrf.domain.stall import STALL_KEY, StallAction, StallState, decide_stall
from nrf.entrypoints.roots.ops import OpsRoot
from nrf.service_layer.stall_alerts import WatchForStalls
from ops_fakes import FakeQueueInspector, InMemoryOpsRecords
from support.wiring import wired

NOW = 1_700_000_000.0
SUPPORT = "support@example.gov.uk"


def test_the_stall_policy() -> None:
    def decide(state: StallState | None, **kw: float) -> tuple[StallState | None, StallAction]:
        args = {
            "waiting": 3,
            "live_workers": 0,
            "oldest_age": None,
            "now": NOW,
            "threshold": 900.0,
            **kw,
        }
        d = decide_stall(state, **args)  # type: ignore[arg-type]
        return d.state, d.action

    # First sight: the stall starts now (no age known), nothing to tell yet.
    assert decide(None) == (StallState(NOW), StallAction.NONE)
    # CloudWatch says the oldest waited 1000 s ≥ 900: alert at once, stall began 1000 s ago.
    assert decide(None, oldest_age=1000) == (StallState(NOW - 1000, NOW), StallAction.ALERT)
    # Watched for 899 s: not yet; 900 s: alert.
    assert decide(StallState(NOW - 899))[1] is StallAction.NONE
    assert decide(StallState(NOW - 900))[1] is StallAction.ALERT
    # Told already: nothing more while it lasts.
    assert decide(StallState(NOW - 5000, NOW - 100)) == (
        StallState(NOW - 5000, NOW - 100),
        StallAction.NONE,
    )
    # A live worker or an empty queue ends it; support hears only of a stall they were told of.
    assert decide(StallState(NOW - 5000, NOW - 100), live_workers=1) == (None, StallAction.CLEAR)
    assert decide(StallState(NOW - 10), waiting=0) == (None, StallAction.NONE)


def watcher(
    queue: FakeQueueInspector,
    records: InMemoryOpsRecords,
    notifier: FakeNotifier,
    clock: FakeClock,
) -> WatchForStalls:
    """`nrf housekeep`'s stall watcher as its root wires it (with its SentOnce)."""
    return wired(
        OpsRoot,
        WorkerSettings(support_email=SUPPORT, stall_alert_seconds=900),
        queue_inspector=queue,
        ops_records=records,
        notifier=notifier,
        clock=clock,
    ).watch_for_stalls()


def kinds(notifier: FakeNotifier) -> list[tuple[str, str]]:
    return [(str(n.kind), n.recipient) for n in notifier.sent]


def test_support_is_told_once_per_stall_and_when_it_clears() -> None:
    queue = FakeQueueInspector(QueueFigures(visible=2, in_flight=0, delayed=0, dlq_visible=0))
    records, notifier, clock = InMemoryOpsRecords(), FakeNotifier(), FakeClock(NOW)
    queue.waiting = [
        WaitingJob("late", "late@example.gov.uk", NOW - 950),  # waited 950 + 900 s by then
        WaitingJob("early", "early@example.gov.uk", NOW + 800),  # 100 s at the alert: not yet
        WaitingJob("anonymous", None, NOW - 5000),
    ]
    watch = watcher(queue, records, notifier, clock)
    assert watch(live_workers=0).action is StallAction.NONE  # first sight
    clock.advance(900)
    report = watch(live_workers=0)
    assert report.action is StallAction.ALERT and report.requesters_told == 1
    assert kinds(notifier) == [("queue_stalled", SUPPORT), ("delayed", "late@example.gov.uk")]
    for _ in range(3):  # later runs in the same stall: nobody told again, nothing peeked
        clock.advance(300)
        watch(live_workers=0)
    assert len(notifier.sent) == 2 and queue.peeks == 1
    clock.advance(300)
    assert watch(live_workers=1).action is StallAction.CLEAR
    assert notifier.sent[-1].personalisation["error_codes"] == "queue_stall_cleared"
    assert len(notifier.sent) == 3

    # A new stall later is a new stall: support is told again, the late requester is not.
    clock.advance(3600)
    watch(live_workers=0)
    clock.advance(900)
    watch(live_workers=0)
    assert kinds(notifier)[3:] == [("queue_stalled", SUPPORT), ("delayed", "early@example.gov.uk")]


def test_two_runs_racing_over_one_stall_alert_only_once() -> None:
    queue = FakeQueueInspector(
        QueueFigures(visible=1, in_flight=0, delayed=0, dlq_visible=0), age=1000.0
    )
    notifier = FakeNotifier()

    class ReadBeforeTheOtherWrote(InMemoryOpsRecords):
        """The second run's first read of the stall happened before the first run wrote it."""

        missed = False

        def get(self, key: str) -> bytes | None:
            if key == STALL_KEY and not self.missed and key in self.data:
                self.missed = True
                return None
            return super().get(key)

    records = ReadBeforeTheOtherWrote()
    first = watcher(queue, records, notifier, FakeClock(NOW))
    assert first(live_workers=0).action is StallAction.ALERT
    # One second later CloudWatch still says 1000 s, so on its own it would date the stall
    # 1 s later (another identity); its create fails and it takes the first run's record.
    watcher(queue, records, notifier, FakeClock(NOW + 1))(live_workers=0)
    assert records.missed
    stalled = [n for n in notifier.sent if n.kind is NotificationKind.QUEUE_STALLED]
    assert len(stalled) == 1


def test_a_dry_run_tells_nobody_and_writes_nothing() -> None:
    queue = FakeQueueInspector(
        QueueFigures(visible=1, in_flight=0, delayed=0, dlq_visible=0), age=5000.0
    )
    records, notifier = InMemoryOpsRecords(), FakeNotifier()
    report = watcher(queue, records, notifier, FakeClock(NOW))(live_workers=0, dry_run=True)
    assert report.action is StallAction.ALERT
    assert notifier.sent == [] and records.data == {} and queue.peeks == 0
