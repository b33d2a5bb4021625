"""``json.dumps(value, indent=2)``'s exact text, about three times as fast for a quote's answer.

Python 3.11's C encoder cannot indent, so ``indent=2`` runs the pure-Python one: 0.09 ms of the
~0.6 ms a quote costs the API's thread, against 0.03 ms here (docs/benchmark.md). This walks the
plain values a result
document is made of (dict, list, tuple, str, int, float, bool, None) with the standard library's
own string and number spellings; anything else is refused as ``json.dumps`` refuses it.
"""

from __future__ import annotations

from json.encoder import INFINITY, encode_basestring_ascii
from typing import Any

_float_repr = float.__repr__
_int_repr = int.__repr__


def _number(value: float) -> str:
    if value != value:
        return "NaN"
    if value == INFINITY:
        return "Infinity"
    if value == -INFINITY:
        return "-Infinity"
    return _float_repr(value)


def _key(key: object) -> str:
    """A dict key as json.dumps writes it: strings as they are, numbers and constants quoted."""
    if isinstance(key, str):
        return str(encode_basestring_ascii(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, float):
        return f'"{_number(key)}"'
    if isinstance(key, int):
        return f'"{_int_repr(key)}"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _write(value: Any, pad: str, out: list[str]) -> None:
    """Append ``value``'s text; ``pad`` is a newline and the current level's indent."""
    if isinstance(value, str):
        out.append(encode_basestring_ascii(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(_int_repr(value))
    elif isinstance(value, float):
        out.append(_number(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner, opening = pad + "  ", "{"
        for key, item in value.items():
            out += (opening, inner, _key(key), ": ")
            _write(item, inner, out)
            opening = ","
        out.append(pad + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner, opening = pad + "  ", "["
        for item in value:
            out += (opening, inner)
            _write(item, inner, out)
            opening = ","
        out.append(pad + "]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps_indented(value: Any) -> str:
    """The same text as ``json.dumps(value, indent=2)`` (no trailing newline)."""
    out: list[str] = []
    _write(value, "\n", out)
    return "".join(out)
