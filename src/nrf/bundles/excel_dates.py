"""Dates as Excel writes them in a UK CSV (31/03/2027), read day first when the file says so.

A slash date is day first or month first; one date alone can be either (01/04/2026). A file
is consistent, so the file decides: when some date's first part is over 12 (31/03/2027, only
day first) and none's second part is (which only month first allows), every slash date of
the file is day first and is rewritten YYYY-MM-DD, each listed as a cleaning. A file whose
slash dates could be either is left as it is, for the gate to refuse with its line.
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
    if not (max(firsts) > 12 and max(seconds) <= 12):
        return  # either order could be meant: the gate refuses each, naming its line
    proof = next(m.group(0) for _, _, m in found if int(m.group(1)) > 12)
    for row, role, match in found:
        day, month, year = (int(g) for g in match.groups())
        try:
            value = date(year, month, day).isoformat()
        except ValueError:
            continue  # 31/02/2027 is no date at all: left for the gate
        where = f"{file_name} line {row['_line']}"
        report.add(
            "cleaned",
            key,
            where,
            f"{role} {match.group(0)!r} read as {value} (day first, as {proof!r} in the "
            "file shows)",
        )
        row[role] = value
