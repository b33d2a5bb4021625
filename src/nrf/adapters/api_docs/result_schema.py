"""JSON Schemas of the result documents, read off the typed records that make them.

The answers are ``unstructure`` of attrs records (serialization.py: Decimals and dates as
text, tuples as lists), so the schema is derived from the same records' fields and types
rather than written out again: a field added to a result is documented by that change, and
the API's tests validate real answers against the outcome.
"""

from __future__ import annotations

import types
import typing
from datetime import date
from decimal import Decimal
from enum import Enum
from typing import Any

import attrs

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    # Money and rates as exact decimal text (serialization.py), never a float.
    Decimal: {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?$"},
    date: {"type": "string", "format": "date"},
    type(None): {"type": "null"},
}


def record_schemas(root: type) -> dict[str, dict[str, Any]]:
    """``{class name: schema}`` for ``root`` and every attrs record it holds, by ``$ref``."""
    found: dict[str, dict[str, Any]] = {}
    _record(root, found)
    return found


def _record(cls: type, found: dict[str, dict[str, Any]]) -> dict[str, str]:
    ref = {"$ref": f"#/components/schemas/{cls.__name__}"}
    if cls.__name__ in found:
        return ref
    found[cls.__name__] = {}  # placed first, so a record that holds itself ends
    hints = typing.get_type_hints(cls)
    fields = attrs.fields(cls)
    found[cls.__name__] = {
        "type": "object",
        "description": (cls.__doc__ or "").strip().splitlines()[0],
        "required": [f.name for f in fields],
        "properties": {f.name: _schema(hints[f.name], found) for f in fields},
    }
    return ref


def _schema(hint: Any, found: dict[str, dict[str, Any]]) -> dict[str, Any]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    if isinstance(hint, type) and issubclass(hint, Enum):
        return {"enum": [member.value for member in hint]}
    if isinstance(hint, type) and attrs.has(hint):
        return _record(hint, found)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_schema(arg, found) for arg in args]}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema(args[0], found)}
        return {"type": "array", "prefixItems": [_schema(a, found) for a in args]}
    if origin in (list, typing.Sequence) or hint is list:
        return {"type": "array", "items": _schema(args[0], found) if args else {}}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(args[1], found)}
    raise TypeError(f"no JSON Schema for {hint!r}")
