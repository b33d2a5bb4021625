"""A feature's attributes, read one way for every input format: names in any case, ids as text.

Planning teams' files name the columns their own way (``Dwel_Cat``, ``DWELLINGS``) and store
ids as numbers or text; a site's dwellings must be a whole number of 0 to the limit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from numbers import Integral, Real

import numpy as np

from nrf.domain.errors import Problem
from nrf.domain.job_request import MAX_DWELLINGS
from nrf.domain.plain_text import plain_text

# Snake-case column -> the name planning teams' files use for it (used only if snake is absent).
COLUMNS: Mapping[str, str] = {
    "id": "id",
    "name": "Name",
    "dwelling_category": "Dwel_Cat",
    "source": "Source",
    "dwellings": "Dwellings",
}
# As the queue message's text fields: a site's text is echoed in every answer and report, so a
# 45 MB name would make a 47 MB answer.
MAX_TEXT_CHARS = 500
# A column a planner's file may leave out, and what it then reads as (issue 19: a GeoJSON drawn by
# hand has a name and dwellings): ``id`` is the feature's position in the file, not "".
DEFAULTS: Mapping[str, str] = {
    "id": "",
    "name": "",
    "dwelling_category": "housing",
    "source": "",
}
# Dwellings written as text: ASCII digits, perhaps with a zero fraction as spreadsheets write
# it ("12.0"); a sign, an exponent ("1e3" was priced as 1,000) or other digits are refused.
_NUMBER = re.compile(r"[+]?[0-9]+(\.0*)?")
ABSENT = object()  # a column the feature does not have


# How to supply a required column a file lacks (a Google Earth polygon has no dwellings).
MISSING_COLUMN_FIX = {
    "dwellings": "give the number with --dwellings N (a file of one site), or name the "
    "column that holds it with --columns MAP (dwellings=COLUMN)",
}


def missing_column_hint(column: str) -> str:
    """What else the column may be called, for a missing-column message."""
    legacy = COLUMNS[column]
    return f" (or {legacy})" if legacy != column else ""


def columns_named(names: list[str]) -> str:
    """The file's own columns for a message: each cut to 40 characters, at most 30 of them."""
    if not names:
        return "it has no columns"
    shown = ", ".join(repr(n if len(n) <= 40 else n[:37] + "...") for n in names[:30])
    return f"its columns are {shown}" + (", ..." if len(names) > 30 else "")


def lookup(properties: Mapping[str, object], column: str) -> object:
    """The snake_case column, else the delivered name, else the snake name as a shapefile
    cuts it to 10 characters (``dwelling_c``); exact names first, then any case (files
    exported from other tools arrive as ``DWELLINGS`` or ``dwel_cat``)."""
    names = (column, COLUMNS[column], column[:10])
    for name in names:
        if name in properties:
            return properties[name]
    folded = {key.casefold(): key for key in properties if isinstance(key, str)}
    for name in names:
        key = folded.get(name.casefold())
        if key is not None:
            return properties[key]
    return ABSENT


def required_text(
    properties: Mapping[str, object], n: int, column: str, found: list[Problem]
) -> str:
    """A text column; name and source may be blank, id and dwelling_category may not.

    Text must be at most ``MAX_TEXT_CHARS`` and encodable as UTF-8: JSON can carry a lone
    surrogate (``"\\ud800"``) that no answer, report or CSV could then be written with. It must
    be text or a number: an object or list would be written as Python's ``{'a': 1}``. Control
    and bidi characters are neutralised (``plain_text``).
    """
    value = lookup(properties, column)
    if isinstance(value, Mapping | list | tuple | set):
        kind = "an object" if isinstance(value, Mapping) else "a list"
        why = f"{column} is {kind}; it must be text or a number"
        found.append(
            Problem(code="invalid_text", message=f"feature {n}: {why}", feature=n, field=column)
        )
        return ""
    text = text_of(value)
    if text is not None:
        text = plain_text(text) or None
    if text is not None and (len(text) > MAX_TEXT_CHARS or not encodable_text(text)):
        why = (
            f"{column} is {len(text):,} characters long; at most {MAX_TEXT_CHARS} are allowed"
            if len(text) > MAX_TEXT_CHARS
            else f"{column} is not valid Unicode text (it holds a lone surrogate)"
        )
        found.append(
            Problem(code="invalid_text", message=f"feature {n}: {why}", feature=n, field=column)
        )
        return ""
    if text is None and column in ("id", "dwelling_category"):
        found.append(
            Problem(
                code="missing_value",
                message=f"feature {n}: {column} is empty; every site needs one",
                feature=n,
                field=column,
            )
        )
    return text or ""


def encodable_text(text: str) -> bool:
    """False for text UTF-8 cannot carry (a lone surrogate from JSON's ``\\ud800``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_of(value: object) -> str | None:
    """A property as text; ids arrive as numbers in one file and text in another."""
    if value is None or value is ABSENT:
        return None
    if isinstance(value, bool | np.bool_):
        return str(bool(value)).lower()
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, Real):
        number = float(value)
        if not math.isfinite(number):
            return None
        return str(int(number)) if number.is_integer() else repr(number)
    text = str(value).strip()
    return text or None


def dwellings_of(properties: Mapping[str, object], n: int, found: list[Problem]) -> int:
    """The number of dwellings; a problem is recorded (and 0 returned) when it is unusable."""
    outcome = _count(lookup(properties, "dwellings"))
    if isinstance(outcome, int):
        return outcome
    code, why = outcome
    found.append(
        Problem(
            code=code,
            message=f"feature {n}: {why}",
            feature=n,
            field="dwellings",
        )
    )
    return 0


def _count(value: object) -> int | tuple[str, str]:
    """A whole number of dwellings, or (code, why)."""
    if value is None or value is ABSENT or (isinstance(value, str) and not value.strip()):
        return "missing_value", "dwellings is empty; give the number of dwellings (0 or more)"
    number: Decimal | None = None
    if isinstance(value, bool | np.bool_):
        number = None  # True is not a count, even though Python calls it 1
    elif isinstance(value, Integral):
        number = Decimal(int(value))
    elif isinstance(value, Real | Decimal) and math.isfinite(float(value)):
        number = Decimal(float(value))
    elif isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            number = None
    shown = repr(value[:60]) if isinstance(value, str) else str(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    if number is not None and number > MAX_DWELLINGS:
        return "invalid_dwellings", f"dwellings is {shown}; it must be at most {MAX_DWELLINGS:,}"
    if number is None or number < 0 or number != number.to_integral_value():
        return "invalid_dwellings", f"dwellings is {shown}; it must be a whole number of 0 or more"
    return int(number)
