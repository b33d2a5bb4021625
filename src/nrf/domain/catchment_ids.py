"""A catchment's id: the lowest ``OID`` of the polygons listed under its label, as text.

Defra's boundary check and PATCH list a catchment by its ``Label`` and identify it by the lowest
``OID`` of its polygons, so the id never depends on the order the polygons were read in. Whole
numbers compare as numbers (9 before 10); Defra's SQL takes the minimum of the OIDs as text,
which agrees whenever the OIDs under one label have as many digits as each other.
"""

from __future__ import annotations

from collections.abc import Iterable

from nrf.domain.model import NnCatchment


def _order(oid: str) -> tuple[int, int, str]:
    text = oid.strip()
    digits = text.removeprefix("-")
    return (0, int(text), text) if digits.isdigit() else (1, 0, text)


def lowest(oids: Iterable[str]) -> str:
    """The lowest of some OIDs (at least one), by the rule above."""
    return min(oids, key=_order)


def lowest_ids(catchments: Iterable[NnCatchment]) -> dict[str, str]:
    """{label: the lowest OID among its polygons}, each label as ``catchment_label`` gives it."""
    ids: dict[str, list[str]] = {}
    for c in catchments:
        ids.setdefault(c.catchment_label, []).append(c.edp_id)
    return {label: lowest(oids) for label, oids in ids.items()}
