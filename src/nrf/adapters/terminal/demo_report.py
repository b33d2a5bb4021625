"""What `nrf demo` prints at the end: stored results, notifications sent, health answers."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from attrs import frozen

from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE
from nrf.domain.levy_text import gbp


@frozen(kw_only=True)
class JobRow:
    """One job as found in the result store."""

    job_id: str
    status: str
    n_total: float | None
    p_total: float | None
    levy: Decimal | None
    codes: tuple[str, ...] = ()
    synthetic: bool = False


def stored_job_row(results: Path, job_id: str) -> JobRow:
    """The stored status and, for a success, the totals; ``missing`` when nothing is stored."""
    folder = results / job_id
    try:
        status = json.loads((folder / "status.json").read_text())
    except (OSError, ValueError):
        return JobRow(job_id=job_id, status="missing", n_total=None, p_total=None, levy=None)
    codes = tuple(status.get("error_codes") or ())
    try:
        result = json.loads((folder / "result.json").read_text())
    except (OSError, ValueError):
        return JobRow(
            job_id=job_id,
            status=str(status.get("status")),
            n_total=None,
            p_total=None,
            levy=None,
            codes=codes,
        )
    sites = result.get("sites") or []
    n = sum(float(s["n_total"]) for s in sites) if sites else None
    p = sum(float(s["p_total"]) for s in sites) if sites else None
    # The levy each site was quoted (excluding VAT); a refused levy is its code, never £0.
    quotes = [s["pricing"]["amount_excluding_vat"] for s in sites if s.get("pricing")]
    levy = sum((Decimal(str(q)) for q in quotes), Decimal("0.00")) if quotes else None
    refused = tuple(s["levy_refusal"]["code"] for s in sites if s.get("levy_refusal"))
    codes += tuple(f"levy {code}" for code in refused)
    status_text = str(status.get("status")) if sites else "out of scope"
    synthetic = bool(result.get("provenance", {}).get("synthetic_data"))
    return JobRow(
        job_id=job_id,
        status=status_text,
        n_total=n,
        p_total=p,
        levy=levy,
        codes=codes,
        synthetic=synthetic,
    )


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def results_table(rows: Sequence[JobRow]) -> str:
    header = f"{'job id':<44} {'N kg/yr':>9} {'P kg/yr':>8} {'levy ex VAT':>15}  status"
    lines = ["!" * 78, SYNTHETIC_NOTICE, "!" * 78, ""] if any(r.synthetic for r in rows) else []
    lines += [header, "-" * len(header)]
    for row in rows:
        levy = "-" if row.levy is None else gbp(row.levy)
        status = row.status + (f" ({', '.join(row.codes)})" if row.codes else "")
        job = row.job_id if len(row.job_id) <= 44 else row.job_id[:43] + "…"
        lines.append(
            f"{job:<44} {_number(row.n_total):>9} {_number(row.p_total):>8} {levy:>15}  {status}"
        )
    lines.append("-" * len(header))
    total = sum((r.levy for r in rows if r.levy is not None), Decimal(0))
    counts = Counter(r.status for r in rows)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    lines.append(f"{len(rows)} jobs: {summary}; levy quoted {gbp(total)} excluding VAT")
    return "\n".join(lines)


def notifications_summary(events: Sequence[Mapping[str, Any]], examples: int = 3) -> str:
    """The log notifier's ``notification_logged`` events: how many of each kind, a few shown."""
    if not events:
        return "no notifications were sent"
    kinds = Counter(str(e.get("kind")) for e in events)
    lines = [
        f"{len(events)} notifications (log-only notifier, nothing was emailed): "
        + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    ]
    for event in [e for e in events if e.get("kind") == "completed"][:examples]:
        personal = event.get("personalisation") or {}
        lines.append(
            f"  {event.get('kind')} to {event.get('recipient')} for {event.get('job_id')}: "
            f"N {personal.get('nitrogen_total_kg_per_year', '-')} kg/yr, "
            f"P {personal.get('phosphorus_total_kg_per_year', '-')} kg/yr, "
            f"levy {personal.get('levy_amount', '-')}"
        )
    return "\n".join(lines)


def health_lines(answers: Mapping[str, tuple[int, str]]) -> str:
    return "\n".join(f"  GET {path}: {status} {body}" for path, (status, body) in answers.items())
