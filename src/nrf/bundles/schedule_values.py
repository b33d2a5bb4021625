"""What counts as a charge, a factor and a date in the charging schedule: plain text, exactly.

A charge is money, so it is read as a plain decimal ("2675", "2193.6649"), never through a float
and never from "1e3" or "NaN", and it has at most 4 places (Defra stores it so: a fifth place
would be rounded away unseen). A date is ISO (YYYY-MM-DD): "01/04/2026" is the 1st of April
in Britain and the 4th of January elsewhere, so it is refused, not guessed.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from nrf.adapters.boundary_data.geopackage_cells import whole_number

_PLAIN = re.compile(r"[+-]?\d+(\.\d+)?")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
PLACES = 4
_FOUR = Decimal(1).scaleb(-PLACES)


def plain_decimal(value: object) -> Decimal | None:
    """The decimal written in ``value`` (text or a whole number), or None when it is not one."""
    if isinstance(value, bool):
        return None
    text = str(value).strip() if isinstance(value, str | int) else ""
    return Decimal(text) if _PLAIN.fullmatch(text) else None


def places(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def four_places(value: object) -> object:
    """A decimal of at most 4 places written with exactly 4 ("2675" -> "2675.0000"); anything
    else is kept as delivered, for the quality gate to refuse with its line."""
    number = plain_decimal(value)
    if number is None or places(number) > PLACES:
        return value
    try:
        return format(number.quantize(_FOUR), "f")
    except InvalidOperation:  # more digits than a Decimal holds (32 nines): the gate says so
        return value


def iso_date_or_none(value: object) -> date | None:
    """The date written YYYY-MM-DD in ``value``, or None."""
    text = value.strip() if isinstance(value, str) else ""
    if not _ISO.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def integer(value: object) -> object:
    """An id or a year as an integer when it is a whole number, else as delivered (or NULL)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    number = whole_number(value)
    return value if number is None else number
