"""`nrf status` and `nrf housekeep` say what they read and what to do next."""

from __future__ import annotations

import pytest

from nrf.adapters.terminal.status_report import (
    StatusSources,
    concern_line,
    render_json,
    render_text,
)
from nrf.domain.fleet import BundleStamp, WorkerBeat, WorkerState, fleet_view
from nrf.domain.fleet_status import FleetStatus, StuckJob, concerns
from nrf.domain.ops_ports import QueueFigures
from nrf.domain.stall import StallAction
from nrf.entrypoints.ops_metrics import queue_stalled, stall_line
from nrf.service_layer.stall_alerts import StallReport

NOW = 1_700_000_000.0
SOURCES = StatusSources(
    queue="nrf_q",
    dead_letter_queue="nrf_q_dlq",
    region="eu-west-2",
    endpoint=None,
    result_store="s3://nrf-results/results",
)


def beat(worker_id: str, version: str) -> WorkerBeat:
    return WorkerBeat(
        worker_id=worker_id,
        state=WorkerState.RUNNING,
        jobs_in_flight=0,
        started_at=NOW - 500,
        written_at=NOW - 1,
        nrf_version="0.1.0",
        bundle=BundleStamp("national", version, version * 16),
        last_queue_contact=None,
    )


def every_concern() -> FleetStatus:
    """Each of the five concerns at once (live workers on two bundles cannot also be none, so
    the no-live-worker case is its own status below)."""
    return FleetStatus(
        checked_at=NOW,
        queue=QueueFigures(visible=0, in_flight=0, delayed=0, dlq_visible=2),
        oldest_age_seconds=None,
        oldest_age_source=None,
        fleet=fleet_view([beat("a", "2026"), beat("b", "2027")], NOW),
        finished_last_hour=0,
        failed_last_hour=0,
        stuck=(StuckJob("job-1", NOW - 7200),),
        undelivered=("job-2",),
    )


def no_worker() -> FleetStatus:
    return FleetStatus(
        checked_at=NOW,
        queue=QueueFigures(visible=3, in_flight=1, delayed=0, dlq_visible=0),
        oldest_age_seconds=None,
        oldest_age_source=None,
        fleet=fleet_view([], NOW),
        finished_last_hour=0,
        failed_last_hour=0,
        stuck=(),
    )


def test_every_concern_line_ends_with_its_next_step() -> None:
    found = concerns(every_concern()) + concerns(no_worker())
    assert [c.code for c in found] == [
        "dlq_not_empty",
        "stuck_jobs",
        "mixed_bundles",
        "undelivered_callbacks",
        "no_live_worker",
    ]
    for concern in found:
        line = concern_line(concern)
        assert line.startswith(f"{concern.code}: ")
        assert line.endswith(f"; next: {concern.next_step}") and len(concern.next_step) > 20


def test_no_live_worker_says_which_service_to_look_at() -> None:
    [concern] = concerns(no_worker(), worker_service="nrf-worker-staging")
    # 3 visible + 1 in flight = 4 waiting.
    assert concern.sentence == "4 message(s) waiting and no live worker"
    assert "ECS service nrf-worker-staging" in concern.next_step
    assert "/ecs/nrf-worker-staging" in concern.next_step


def test_the_report_starts_with_what_it_read() -> None:
    text = render_text(no_worker(), concerns(no_worker()), SOURCES)
    assert text.splitlines()[0] == (
        "read: queue nrf_q and dead-letter queue nrf_q_dlq in eu-west-2; "
        "result store s3://nrf-results/results"
    )
    import json

    doc = json.loads(render_json(no_worker(), concerns(no_worker()), SOURCES))
    assert doc["read"] == {
        "queue": "nrf_q",
        "dead_letter_queue": "nrf_q_dlq",
        "region": "eu-west-2",
        "endpoint": None,
        "result_store": "s3://nrf-results/results",
    }
    assert doc["concerns"][0]["next_step"].startswith("look at the ECS service nrf-worker")


@pytest.mark.parametrize(
    ("report", "says"),
    [
        # The old fault: a stall under the threshold was "stall: none" with QueueStalled 1.
        (StallReport(action=StallAction.NONE, waiting=3, stalled_for=120.0), "stall: yes"),
        (StallReport(action=StallAction.ALERT, waiting=3, stalled_for=901.0), "stall: yes"),
        (StallReport(action=StallAction.NONE, waiting=0, stalled_for=None), "stall: none"),
        (StallReport(action=StallAction.CLEAR, waiting=0, stalled_for=None), "stall: none"),
    ],
)
def test_the_stall_line_agrees_with_the_metric(report: StallReport, says: str) -> None:
    line = stall_line(report, dry_run=True)
    assert line.startswith(says)
    assert f"(QueueStalled {queue_stalled(report)})" in line
    assert queue_stalled(report) == (says == "stall: yes")


def test_a_dry_run_says_what_it_would_do() -> None:
    alert = StallReport(action=StallAction.ALERT, waiting=3, stalled_for=901.0)
    assert stall_line(alert, dry_run=True).endswith(
        "; would alert support and tell delayed requesters"
    )
    assert "with no live worker for 901 s" in stall_line(alert, dry_run=False)
    clear = StallReport(action=StallAction.CLEAR, waiting=0, stalled_for=None)
    assert stall_line(clear, dry_run=True).endswith("; would tell support the stall is over")
