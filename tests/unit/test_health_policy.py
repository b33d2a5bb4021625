"""The pure /health and /ready policy, with hand-worked ages and limits."""

from __future__ import annotations

import pytest

from nrf.domain.health import (
    HeartbeatSnapshot,
    WorkerStatus,
    evaluate_health,
    evaluate_readiness,
    heartbeat_limit,
)

BEAT = 1_000.0


def running(**changes: object) -> HeartbeatSnapshot:
    values: dict[str, object] = {
        "status": WorkerStatus.RUNNING,
        "last_heartbeat": BEAT,
        "task_started_at": 900.0,
        "bundle_loaded": True,
        "queue_reachable": True,
    }
    values.update(changes)
    return HeartbeatSnapshot(**values)  # type: ignore[arg-type]


def busy(expected: float) -> HeartbeatSnapshot:
    return running(job_id="NRF-000001", job_started_at=BEAT, expected_seconds=expected)


@pytest.mark.parametrize(
    ("now", "healthy", "reason", "age"),
    [
        (1_000.0, True, "ok", 0.0),
        (1_179.5, True, "ok", 179.5),  # 179.5 s < 180 s
        (1_180.0, False, "heartbeat_stale", 180.0),  # fresh means strictly younger
        (1_500.0, False, "heartbeat_stale", 500.0),
    ],
)
def test_idle_worker_uses_the_heartbeat_timeout(
    now: float, healthy: bool, reason: str, age: float
) -> None:
    verdict = evaluate_health(running(), now)
    assert (verdict.healthy, verdict.reason, verdict.heartbeat_age) == (healthy, reason, age)
    assert verdict.job_in_progress is False


def test_a_running_job_is_allowed_its_expected_duration_times_the_buffer() -> None:
    # 600 s expected x 1.5 = 900 s, longer than the 180 s idle limit.
    assert heartbeat_limit(busy(600.0)) == 900.0
    assert evaluate_health(busy(600.0), BEAT + 899.0).healthy
    stale = evaluate_health(busy(600.0), BEAT + 900.0)
    assert (stale.healthy, stale.reason, stale.job_in_progress) == (
        False,
        "job_heartbeat_stale",
        True,
    )


def test_a_tiny_job_still_gets_the_idle_timeout() -> None:
    # 10 s x 1.5 = 15 s would be stricter than idle; the larger limit (180 s) wins.
    assert heartbeat_limit(busy(10.0)) == 180.0
    assert evaluate_health(busy(10.0), BEAT + 170.0).healthy


def test_custom_timeout_and_buffer() -> None:
    # max(2, 4 x 2.5 = 10) = 10
    assert heartbeat_limit(busy(4.0), heartbeat_timeout=2.0, task_timeout_buffer=2.5) == 10.0
    assert evaluate_health(busy(4.0), BEAT + 9.9, 2.0, 2.5).healthy
    assert not evaluate_health(busy(4.0), BEAT + 10.0, 2.0, 2.5).healthy
    assert not evaluate_health(running(), BEAT + 2.0, 2.0, 2.5).healthy


def test_a_job_without_an_estimate_uses_the_idle_timeout() -> None:
    snapshot = running(job_id="j", job_started_at=BEAT, expected_seconds=None)
    assert heartbeat_limit(snapshot) == 180.0


@pytest.mark.parametrize(
    ("status", "reason"),
    [(WorkerStatus.ERROR, "worker_error"), (WorkerStatus.STOPPED, "worker_not_running")],
)
def test_a_worker_that_is_not_running_is_unhealthy_even_with_a_fresh_beat(
    status: int, reason: str
) -> None:
    verdict = evaluate_health(running(status=status), BEAT + 1.0)
    assert (verdict.healthy, verdict.reason) == (False, reason)


def test_a_clock_stepping_back_gives_age_zero_not_negative() -> None:
    verdict = evaluate_health(running(), BEAT - 30.0)
    assert verdict.heartbeat_age == 0.0
    assert verdict.healthy


@pytest.mark.parametrize(
    ("changes", "ready", "reason"),
    [
        ({}, True, "ready"),
        ({"bundle_loaded": False}, False, "bundle_not_loaded"),
        ({"queue_reachable": False}, False, "queue_unreachable"),
        ({"draining": True}, False, "draining"),
        ({"status": WorkerStatus.STOPPED}, False, "worker_not_running"),
        ({"status": WorkerStatus.ERROR}, False, "worker_not_running"),
    ],
)
def test_readiness_needs_bundle_queue_running_and_not_draining(
    changes: dict[str, object], ready: bool, reason: str
) -> None:
    verdict = evaluate_readiness(running(**changes))
    assert (verdict.ready, verdict.reason) == (ready, reason)
