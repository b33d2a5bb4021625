"""The representation an ``Accept`` header asks for (RFC 9110 §12.5.1), else a 406 problem.

Each offered type takes the quality of the most specific range that matches it (``text/csv``
beats ``text/*`` beats ``*/*``); the highest quality above 0 wins, a tie goes to the server's
order (JSON first). No header, or an empty one, accepts anything. A client that accepts none
of the types is told so (406) rather than sent JSON it said it cannot take.
"""

from __future__ import annotations

from collections.abc import Sequence

from nrf.entrypoints.api.problems import ApiProblem

Range = tuple[str, str, float]  # (type, subtype, quality)


def accept_ranges(header: str) -> list[Range]:
    """The media ranges of an Accept header; a malformed range or quality is skipped."""
    ranges: list[Range] = []
    for item in header.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        kind, slash, subtype = media.lower().partition("/")
        if not slash or not kind or not subtype or (kind == "*" and subtype != "*"):
            continue
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = -1.0
        if 0.0 <= quality <= 1.0:
            ranges.append((kind, subtype, quality))
    return ranges


def quality_of(media_type: str, ranges: Sequence[Range]) -> float:
    """The quality the most specific matching range gives ``media_type`` (0 if none match)."""
    kind, _, subtype = media_type.partition("/")
    best: tuple[int, float] = (-1, 0.0)
    for range_kind, range_subtype, quality in ranges:
        if (range_kind, range_subtype) == (kind, subtype):
            specificity = 2
        elif (range_kind, range_subtype) == (kind, "*"):
            specificity = 1
        elif (range_kind, range_subtype) == ("*", "*"):
            specificity = 0
        else:
            continue
        if specificity > best[0]:
            best = (specificity, quality)
        elif specificity == best[0]:
            best = (specificity, max(best[1], quality))
    return best[1]


def negotiate(header: str | None, offered: Sequence[str]) -> str:
    """The offered type ``header`` accepts best; ApiProblem ``not_acceptable`` (406) if none."""
    if header is None or not header.strip():
        return offered[0]
    ranges = accept_ranges(header)
    scored = [
        (quality_of(media_type, ranges), -n, media_type) for n, media_type in enumerate(offered)
    ]
    quality, _, chosen = max(scored)
    if quality > 0:
        return chosen
    raise ApiProblem(
        "not_acceptable",
        f"the Accept header {header.strip()[:200]!r} accepts none of {', '.join(offered)}",
    )
