"""`nrf status` output: one screen for a person, or JSON for a script; concerns one per line.

It starts with what it read (queue, region, result store): "all well" about the wrong queue
or an empty folder must be visible as such.
"""

from __future__ import annotations

import json
from typing import Any

from attrs import frozen

from nrf.adapters.telemetry.iso_time import iso_utc
from nrf.domain.fleet import WorkerBeat
from nrf.domain.fleet_status import Concern, FleetStatus


@frozen(kw_only=True)
class StatusSources:
    """Where `nrf status` read: the queues, their region (and endpoint), the result store."""

    queue: str
    dead_letter_queue: str
    region: str
    endpoint: str | None
    result_store: str

    def line(self) -> str:
        via = f" via {self.endpoint}" if self.endpoint else ""
        return (
            f"read: queue {self.queue} and dead-letter queue {self.dead_letter_queue} in "
            f"{self.region}{via}; result store {self.result_store}"
        )


def _ago(now: float, then: float | None) -> str:
    return "never" if then is None else f"{max(0.0, now - then):.0f} s ago"


def _worker_line(kind: str, beat: WorkerBeat, now: float) -> str:
    return (
        f"  {kind:<7} {beat.worker_id:<32} {beat.state:<8} {beat.jobs_in_flight} in flight  "
        f"bundle {beat.bundle.label()}  nrf {beat.nrf_version}  "
        f"beat {_ago(now, beat.written_at)}, queue {_ago(now, beat.last_queue_contact)}"
    )


def render_text(status: FleetStatus, found: list[Concern], sources: StatusSources) -> str:
    now, q, fleet = status.checked_at, status.queue, status.fleet
    if status.oldest_age_seconds is None:
        oldest = "oldest message: unknown (no CloudWatch figure)"
    elif status.oldest_age_source == "stall_watch":
        oldest = f"oldest message: at least {status.oldest_age_seconds:.0f} s (stall watch)"
    else:
        oldest = f"oldest message: {status.oldest_age_seconds:.0f} s"
    lines = [
        sources.line(),
        f"queue: {q.visible} waiting, {q.in_flight} in flight, {q.delayed} delayed; {oldest}",
        f"dead-letter queue: {q.dlq_visible}",
        f"workers: {len(fleet.live)} live, {len(fleet.stale)} stale, {len(fleet.stopped)} stopped",
    ]
    lines += [_worker_line("live", b, now) for b in fleet.live]
    lines += [_worker_line("stale", b, now) for b in fleet.stale]
    lines.append(
        f"last hour: {status.finished_last_hour} finished, {status.failed_last_hour} failed"
    )
    lines.append(f"stuck jobs: {len(status.stuck)}")
    lines += [f"  {s.job_id} (lease ended {_ago(now, s.lease_ended_at)})" for s in status.stuck]
    if status.undelivered:
        lines.append(f"undelivered callbacks: {', '.join(status.undelivered)}")
    lines.append("all well" if not found else "needs attention:")
    lines += [concern_line(c) for c in found]
    return "\n".join(lines)


def concern_line(concern: Concern) -> str:
    """``code: what is wrong; next: what to do``: the line ends with the next step."""
    return f"{concern.code}: {concern.sentence}; next: {concern.next_step}"


def _beat(beat: WorkerBeat, now: float) -> dict[str, Any]:
    return {
        "worker_id": beat.worker_id,
        "status": str(beat.state),
        "jobs_in_flight": beat.jobs_in_flight,
        "started_at": beat.started_at,
        "started_at_utc": iso_utc(beat.started_at),
        "heartbeat_age_seconds": round(beat.age(now), 3),
        "nrf_version": beat.nrf_version,
        "bundle": {
            "name": beat.bundle.name,
            "version": beat.bundle.version,
            "sha256": beat.bundle.sha256,
        },
        "last_queue_contact": beat.last_queue_contact,
        "last_queue_contact_utc": iso_utc(beat.last_queue_contact),
    }


def render_json(status: FleetStatus, found: list[Concern], sources: StatusSources) -> str:
    now, q, fleet = status.checked_at, status.queue, status.fleet
    return json.dumps(
        {
            "checked_at": now,
            "checked_at_utc": iso_utc(now),
            "read": {
                "queue": sources.queue,
                "dead_letter_queue": sources.dead_letter_queue,
                "region": sources.region,
                "endpoint": sources.endpoint,
                "result_store": sources.result_store,
            },
            "queue": {
                "visible": q.visible,
                "in_flight": q.in_flight,
                "delayed": q.delayed,
                "oldest_age_seconds": status.oldest_age_seconds,
                "oldest_age_source": status.oldest_age_source,
            },
            "dlq": {"visible": q.dlq_visible},
            "workers": {
                "live": [_beat(b, now) for b in fleet.live],
                "stale": [_beat(b, now) for b in fleet.stale],
                "stopped": [_beat(b, now) for b in fleet.stopped],
                "bundles": [b.label() for b in fleet.bundles],
            },
            "last_hour": {"finished": status.finished_last_hour, "failed": status.failed_last_hour},
            "stuck_jobs": [
                {
                    "job_id": s.job_id,
                    "lease_ended_at": s.lease_ended_at,
                    "lease_ended_at_utc": iso_utc(s.lease_ended_at),
                }
                for s in status.stuck
            ],
            "undelivered_callbacks": list(status.undelivered),
            "concerns": [
                {"code": c.code, "sentence": c.sentence, "next_step": c.next_step} for c in found
            ],
        },
        indent=2,
    )
