"""Numbers delivered as text: what is unambiguous is read (and said how), the rest is refused.

"12.5" is 12.5; " 12 " is 12 with its spaces stripped; "1,234.5" is 1234.5 with its thousands
separators dropped (only when every group after the first has three digits, so "1,5" is not
mistaken for a decimal comma); a pound sign is dropped only where the column is money. Anything
else ("N/A", "5%", "12 kg") is not a number.
"""

from __future__ import annotations

import math
import re

from attrs import frozen

_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?")
POUND = "£"


@frozen
class Parsed:
    """The number, and how the text had to be read to get it ('' when it was plain)."""

    value: float
    how: str


def parse_number(text: str, *, money: bool = False) -> Parsed | None:
    """The number written in ``text``, or None when it is not one (see the module rule)."""
    notes = []
    body = text.strip()
    if body != text:
        notes.append("spaces stripped")
    if money and body.startswith(POUND):
        body = body[len(POUND) :].strip()
        notes.append("pound sign dropped")
    if _GROUPED.fullmatch(body):
        body = body.replace(",", "")
        notes.append("thousands separators dropped")
    try:
        value = float(body)
    except ValueError:
        return None
    if math.isnan(value):
        return None
    return Parsed(value, ", ".join(notes))
