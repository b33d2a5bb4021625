"""Untrusted JSON, read one way for a queue message and an API body: one reader, one code a fault.

``NaN`` and ``Infinity`` are refused (they are not JSON, and would become float NaN in a
figure); a document too deep for Python's parser is "not JSON", not a crash; and nesting is
capped at 64 levels of objects and lists (a MultiPolygon FeatureCollection needs 7), because
every later walk of the document recurses over it.
"""

from __future__ import annotations

import json
from typing import Any

from nrf.domain.errors import InvalidInput, Problem

MAX_JSON_DEPTH = 64
NOT_JSON = "not_json"
TOO_DEEP = "json_too_deep"


def read_json(text: str | bytes, what: str) -> Any:
    """The document in ``text`` (``what`` names it in the message), or InvalidInput."""
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        detail = f"{what} is not valid JSON ({str(error).splitlines()[0][:80]})"
        raise InvalidInput([Problem(code=NOT_JSON, message=detail)]) from None
    if not depth_within(document, MAX_JSON_DEPTH):
        detail = f"{what} nests deeper than {MAX_JSON_DEPTH} levels"
        raise InvalidInput([Problem(code=TOO_DEEP, message=detail)])
    return document


def depth_within(value: object, limit: int) -> bool:
    """True when no list or object nests deeper than ``limit`` (a list of numbers ends a path)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, dict | list))
    return True


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed in JSON")
