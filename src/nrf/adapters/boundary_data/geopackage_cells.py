"""One stored cell of a bundle's table read as a value: an id, a key, text, a number, money, a date.

GeoPackages written by hand or by other tools store the same value in several ways (11307,
1065.0, " 1065.0 ", "2675.0000"); each reader accepts the ways that mean one value and
refuses the rest, so a lookup (geopackage_lookups.py) lists every bad cell it meets.
"""

from __future__ import annotations

import math
import re
from datetime import date
from decimal import Decimal


def whole_number(value: object) -> int | None:
    """An id stored as 11307, 1065.0, "\\t11307" or " 1065.0 "; None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                return None
            return int(number) if number.is_integer() else None
    return None


def edp_key(value: object) -> str | None:
    """EDP ids as text: 2, 2.0 and " 2 " are all "2"; other text is kept, stripped."""
    if value is None:
        return None
    number = whole_number(value)
    if number is not None:
        return str(number)
    text = str(value).strip()
    return text or None


def text_or_none(value: object) -> str | None:
    text = "" if value is None else str(value).strip()
    return text or None


def number(value: object) -> float | None:
    """A stored number or numeric text as float; None for NULL or blank; ValueError otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(value)
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(value)
    return result


_DECIMAL_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def decimal_text(value: object) -> Decimal:
    """Money kept as decimal text ("2675.0000") or a whole number, exactly; ValueError otherwise.

    A binary float is refused rather than converted: the schedule is money, and a REAL column
    means the table was written wrongly, whatever the value looks like.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value.strip()):
        return Decimal(value.strip())
    raise ValueError(value)


def stored_date(value: object) -> date:
    """A date stored as YYYY-MM-DD text; ValueError for anything else."""
    if isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
        return date.fromisoformat(value.strip())
    raise ValueError(value)
