"""Untrusted JSON, read one way for a queue message and an API body: one reader, one code a fault.

``NaN`` and ``Infinity`` are refused (they are not JSON, and would become float NaN in a
figure); a document too deep for Python's parser is "not JSON", not a crash; and nesting is
capped at 64 levels of objects and lists (a MultiPolygon FeatureCollection needs 7), because
every later walk of the document recurses over it. An object naming a member twice is refused
(``unique_members``, also used by the boundary files' readers): readers disagree on which
value counts, so ``{"dwellings": 10, "dwellings": 20}`` checked as 10 homes elsewhere was
priced here as 20.
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
        document = json.loads(
            text, parse_constant=_refuse_constant, object_pairs_hook=unique_members
        )
    except (ValueError, RecursionError) as error:
        detail = f"{what} is not valid JSON ({str(error).splitlines()[0][:80]})"
        raise InvalidInput([Problem(code=NOT_JSON, message=detail)]) from None
    if not depth_within(document, MAX_JSON_DEPTH):
        detail = f"{what} nests deeper than {MAX_JSON_DEPTH} levels"
        raise InvalidInput([Problem(code=TOO_DEEP, message=detail)])
    return document


class RepeatedName(ValueError):
    """A JSON object names one member twice."""


def unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members (``object_pairs_hook``), or RepeatedName for a name given twice:
    Python and JavaScript keep the last value, other readers the first."""
    members = dict(pairs)
    if len(members) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise RepeatedName(f"the name {name[:60]!r} is given twice in one object")
            seen.add(name)
    return members


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
