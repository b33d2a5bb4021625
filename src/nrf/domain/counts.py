"""A count with its noun, singular for one: "1 site", "2 sites", "1,000 sites"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with ``noun`` (``plural``, default noun + "s", for any count but one)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
