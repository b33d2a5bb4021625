"""Each environment variable's value parsed and checked, its refusal a sentence for the log.

A bad value is reported as ``VARIABLE=value: must be ...`` beside every other bad one
(settings.load_settings), so one start shows an operator all that is wrong at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any


def ranged(kind: Callable[[str], float], low: float, high: float) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if not low <= value <= high:
            raise ValueError(f"must be between {low} and {high}")
        return value

    return parse


def int_between(low: int, high: int) -> Callable[[str], int]:
    return ranged(int, low, high)


def float_between(low: float, high: float) -> Callable[[str], float]:
    return ranged(float, low, high)


def iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError("must be a date, YYYY-MM-DD") from None


def choice(*options: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"must be one of {', '.join(options)}")
        return text

    return parse


def flag(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise ValueError("must be true or false")
    return text.lower() == "true"


def worker_id(text: str) -> str:
    # It names the worker's heartbeat record: a plain file or object name.
    if re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}", text) is None:
        raise ValueError("must be 1-128 of A-Z a-z 0-9 . _ - and not start with a dot")
    return text


def domains(text: str) -> tuple[str, ...]:
    return tuple(d.strip().lower() for d in text.split(",") if d.strip())
