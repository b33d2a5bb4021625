"""A quote day as people write it on a form: ``YYYY-MM-DD`` in ASCII digits, nothing else.

``date.fromisoformat`` also reads ISO week dates (``2026-W01-1``) and, in ten characters,
other digits; a day that reads differently from how it is written would price a levy on a
day nobody meant, so only the one form is read.
"""

from __future__ import annotations

import re
from datetime import date

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def calendar_day(text: str) -> date | None:
    """The day ``text`` writes as YYYY-MM-DD, or None (another form, or no such day)."""
    if not _DAY.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
