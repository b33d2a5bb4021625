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


class DayFirst:
    """A file's evidence for its date order, seen a date at a time; then its dates rewritten.

    Two passes, so a file of any length is judged whole without being held: ``see`` every
    date, then ``rewrite`` each row (a no-op unless the file showed it is day first).
    """

    def __init__(self) -> None:
        self._most_second = 0
        self._proof: str | None = None  # the first date that is only day first

    def see(self, value: object) -> None:
        match = _SLASHED.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            return
        first, second = int(match.group(1)), int(match.group(2))
        self._most_second = max(self._most_second, second)
        if first > 12 and self._proof is None:
            self._proof = match.group(0)

    @property
    def shown(self) -> bool:
        """Some date is only day first and none only month first."""
        return self._proof is not None and self._most_second <= 12

    @property
    def both_orders(self) -> bool:
        """Some date is only day first and another only month first: none can be trusted."""
        return self._proof is not None and self._most_second > 12

    def rewrite(
        self,
        key: str,
        file_name: str,
        row: dict[str, object],
        roles: Sequence[str],
        report: QcReport,
    ) -> None:
        """Rewrite the row's slash dates in ``roles`` as YYYY-MM-DD, each listed: all of them
        when the file is shown day first, else those whose day and month are equal."""
        if self.both_orders:
            return
        for role in roles:
            text = row.get(role)
            match = _SLASHED.fullmatch(text) if isinstance(text, str) else None
            if match is None:
                continue
            day, month, year = (int(g) for g in match.groups())
            if not self.shown and day != month:
                continue  # either order could be meant: the gate refuses it, naming its line
            try:
                value = date(year, month, day).isoformat()
            except ValueError:
                continue  # 31/02/2027 is no date at all: left for the gate
            why = (
                f"as {self._proof!r} in the file shows"
                if self.shown
                else "the same date either way"
            )
            report.add(
                "cleaned",
                key,
                f"{file_name} line {row['_line']}",
                f"{role} {match.group(0)!r} read as {value} (day first, {why})",
            )
            row[role] = value


def day_first_dates(
    key: str, file_name: str, rows: list[dict[str, object]], roles: Sequence[str], report: QcReport
) -> None:
    """Rewrite ``rows``' slash dates in ``roles`` as YYYY-MM-DD when the file is day first."""
    order = DayFirst()
    for row in rows:
        for role in roles:
            order.see(row.get(role))
    for row in rows:
        order.rewrite(key, file_name, row, roles, report)
