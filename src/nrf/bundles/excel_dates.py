"""Dates as Excel writes them in a UK CSV (31/03/2027), read day first when the file says so.

A slash date is day first or month first; one date alone can be either (01/04/2026). A file
is consistent, so the file decides: when some date's first part is over 12 (31/03/2027, only
day first) and none's second part is (which only month first allows), every slash date of
the file is day first and is rewritten YYYY-MM-DD, each listed as a cleaning. A date whose
day and month are equal (01/01/2026) is the same date either way, so it is read even in a file
whose order is not shown; the others of such a file are left as they are, for the gate to refuse
with its line. A file that shows both orders is left whole: its dates cannot be trusted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from nrf.bundles.qc.report import QcReport

_SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def day_first_dates(
    key: str, file_name: str, rows: list[dict[str, object]], roles: Sequence[str], report: QcReport
) -> None:
    """Rewrite ``rows``' slash dates in ``roles`` as YYYY-MM-DD when the file is day first."""
    found = [
        (row, role, match)
        for row in rows
        for role in roles
        if isinstance(row.get(role), str) and (match := _SLASHED.fullmatch(str(row[role])))
    ]
    if not found:
        return
    firsts = [int(m.group(1)) for _, _, m in found]
    seconds = [int(m.group(2)) for _, _, m in found]
    if max(firsts) > 12 and max(seconds) > 12:
        return  # the file says both orders: the gate refuses each, naming its line
    shown = max(firsts) > 12
    proof = next((m.group(0) for _, _, m in found if int(m.group(1)) > 12), "")
    for row, role, match in found:
        day, month, year = (int(g) for g in match.groups())
        if not shown and day != month:
            continue  # either order could be meant: the gate refuses it, naming its line
        try:
            value = date(year, month, day).isoformat()
        except ValueError:
            continue  # 31/02/2027 is no date at all: left for the gate
        why = f"as {proof!r} in the file shows" if shown else "the same date either way"
        where = f"{file_name} line {row['_line']}"
        report.add(
            "cleaned", key, where, f"{role} {match.group(0)!r} read as {value} (day first, {why})"
        )
        row[role] = value
