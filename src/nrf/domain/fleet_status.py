"""The fleet at a glance, and the pure policy of what in it needs a person (exit 1).

Each concern is a stable code and a sentence, so a cron check or an alarm can act on the
code and a person can act on the sentence. Only things a person must do something about are
concerns: a large backlog with live workers is the scaling policy's business, not a page.
"""

from __future__ import annotations

from attrs import frozen

from nrf.domain.fleet import FleetView
from nrf.domain.ops_ports import QueueFigures


@frozen
class StuckJob:
    """A claim whose lease ran out long ago with no stored result: nobody is finishing it."""

    job_id: str
    lease_ended_at: float


@frozen(kw_only=True)
class FleetStatus:
    """What `nrf status` shows."""

    checked_at: float
    queue: QueueFigures
    oldest_age_seconds: float | None
    oldest_age_source: str | None  # "cloudwatch", "stall_watch" (a lower bound) or None
    fleet: FleetView
    finished_last_hour: int
    failed_last_hour: int
    stuck: tuple[StuckJob, ...]
    undelivered: tuple[str, ...] = ()  # jobs whose backend callback could not be delivered


@frozen
class Concern:
    """A stable code, what is wrong, and the next step a person takes."""

    code: str
    sentence: str
    next_step: str


def concerns(status: FleetStatus, worker_service: str = "nrf-worker") -> list[Concern]:
    """Everything that needs a person, in a fixed order; empty when all is well.

    ``worker_service`` names the workers' ECS service (and log group ``/ecs/<service>``) in
    the next steps, so a page says where to look.
    """
    found: list[Concern] = []
    queue, fleet = status.queue, status.fleet
    logs = f"log group /ecs/{worker_service}"
    if queue.dlq_visible > 0:
        found.append(
            Concern(
                "dlq_not_empty",
                f"{queue.dlq_visible} message(s) in the dead-letter queue",
                "run `nrf dlq`: it fails each job on the record and tells support and the "
                "requester",
            )
        )
    waiting = queue.visible + queue.in_flight
    if waiting > 0 and not fleet.live:
        found.append(
            Concern(
                "no_live_worker",
                f"{waiting} message(s) waiting and no live worker",
                f"look at the ECS service {worker_service}: its running count, its stopped "
                f"tasks' reasons, and `worker_cannot_start` in the {logs}",
            )
        )
    if status.stuck:
        names = ", ".join(s.job_id for s in status.stuck[:10])
        found.append(
            Concern(
                "stuck_jobs",
                f"{len(status.stuck)} job(s) claimed, lease over, no result: {names}",
                f"search the {logs} for each job id; one whose message is in neither queue "
                "will not be retried: ask its requester to submit it again",
            )
        )
    if len(fleet.bundles) > 1:
        labels = "; ".join(b.label() for b in fleet.bundles)
        found.append(
            Concern(
                "mixed_bundles",
                f"live workers disagree on the bundle: {labels}",
                f"look at the ECS service {worker_service}'s deployments: a rollout is under "
                "way or stuck; every task should run the NRF_REFERENCE_DATA_SHA256 pinned",
            )
        )
    if status.undelivered:
        names = ", ".join(status.undelivered[:10])
        found.append(
            Concern(
                "undelivered_callbacks",
                f"{len(status.undelivered)} job(s) whose result never reached the backend: {names}",
                "check that the backend at BACKEND_BASE_URL answers; the worker retries each "
                "while its message lives, and `nrf dlq` tries once more after",
            )
        )
    return found
