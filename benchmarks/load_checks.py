"""Zero lost, zero duplicated: each job's result, log events and emails counted after a load run."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

Event = Mapping[str, Any]
KIND_BY_TEMPLATE = {"tpl-started": "started", "tpl-completed": "completed", "tpl-failed": "failed"}


def _check(ok: bool, detail: object) -> dict[str, Any]:
    return {"ok": ok, "detail": detail}


def _sample(items: Iterable[str], limit: int = 10) -> list[str]:
    return sorted(items)[:limit]


def check_run(
    expected: Mapping[str, Mapping[str, Any]],
    results: Path,
    events: Sequence[Event],
    emails: Sequence[Mapping[str, Any]],
    queue_counts: Mapping[str, tuple[int, int]],
    exit_codes: Sequence[int | None],
) -> dict[str, dict[str, Any]]:
    """Each check is {"ok", "detail"}; ``expected`` maps job id -> {"status", "code", "emails"}."""
    checks: dict[str, dict[str, Any]] = {}
    statuses: dict[str, dict[str, Any]] = {}
    for job_id in expected:
        path = results / job_id / "status.json"
        if path.exists():
            statuses[job_id] = json.loads(path.read_text())
    lost = [j for j in expected if j not in statuses]
    checks["no_job_lost"] = _check(not lost, {"missing_status": len(lost), "sample": _sample(lost)})

    wrong = [
        j
        for j, want in expected.items()
        if j in statuses
        and (
            statuses[j]["status"] != want["status"]
            or (want["code"] and want["code"] not in statuses[j].get("error_codes", []))
        )
    ]
    checks["every_status_as_expected"] = _check(not wrong, {"wrong": _sample(wrong)})

    present = {p.name for p in results.iterdir() if p.is_dir()} if results.exists() else set()
    stray = present - set(expected)
    checks["no_unexpected_results"] = _check(not stray, {"unexpected": _sample(stray)})

    stored = Counter(e.get("job_id") for e in events if e.get("event") == "job_stored")
    bad_stored = [
        j
        for j, want in expected.items()
        if stored[j] != (1 if want["status"] == "succeeded" else 0)
    ]
    checks["job_stored_once_per_job"] = _check(
        not bad_stored, {"events": sum(stored.values()), "wrong": _sample(bad_stored)}
    )
    finished = Counter(e.get("job_id") for e in events if e.get("event") == "job_finished")
    repeated = [j for j in expected if finished[j] != 1]
    checks["job_finished_once_per_job"] = _check(
        not repeated, {"events": sum(finished.values()), "wrong": _sample(repeated)}
    )
    checks.update(_email_checks(expected, statuses, emails))
    busy = {name: counts for name, counts in queue_counts.items() if counts != (0, 0)}
    checks["queue_and_dlq_empty"] = _check(not busy, {k: list(v) for k, v in queue_counts.items()})
    checks["workers_exited_cleanly"] = _check(
        all(code == 0 for code in exit_codes), {"exit_codes": list(exit_codes)}
    )
    return checks


def _email_checks(
    expected: Mapping[str, Mapping[str, Any]],
    statuses: Mapping[str, Mapping[str, Any]],
    emails: Sequence[Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    sent = Counter(
        (e.get("reference"), KIND_BY_TEMPLATE.get(e.get("template_id", ""))) for e in emails
    )
    final_wrong, started_wrong, unrecorded = [], [], []
    for job_id, want in expected.items():
        final = "completed" if want["status"] == "succeeded" else "failed"
        other = "failed" if final == "completed" else "completed"
        told = 1 if want["emails"] else 0
        if sent[(job_id, final)] != told or sent[(job_id, other)] != 0:
            final_wrong.append(job_id)
        started = sent[(job_id, "started")]
        if started > 1 or (want["status"] == "succeeded" and started != 1):
            started_wrong.append(job_id)
        recorded = [
            n
            for n in statuses.get(job_id, {}).get("notifications", [])
            if n.get("kind") == final and n.get("sent")
        ]
        if job_id in statuses and len(recorded) != told:
            unrecorded.append(job_id)
    strangers = {ref for ref, _ in sent} - set(expected)
    return {
        "one_final_email_per_job": _check(
            not final_wrong, {"emails": len(emails), "wrong": _sample(final_wrong)}
        ),
        "at_most_one_started_email": _check(not started_wrong, {"wrong": _sample(started_wrong)}),
        "final_email_recorded_in_status": _check(not unrecorded, {"wrong": _sample(unrecorded)}),
        "no_email_for_unknown_jobs": _check(
            not strangers, {"unknown": _sample(str(s) for s in strangers)}
        ),
    }


def percentile(values: Sequence[float], percent: int) -> float | None:
    """Nearest rank: the smallest value with at least ``percent`` % of the values at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * percent // 100))  # ceil(n × percent / 100) in integers
    return ordered[rank - 1]


def latency_summary(milliseconds: Sequence[float]) -> dict[str, float | int | None]:
    def r(v: float | None) -> float | None:
        return None if v is None else round(v, 1)

    return {
        "n": len(milliseconds),
        "p50": r(percentile(milliseconds, 50)),
        "p95": r(percentile(milliseconds, 95)),
        "p99": r(percentile(milliseconds, 99)),
        "max": r(max(milliseconds)) if milliseconds else None,
    }
