"""A planner's own column names mapped onto nrf's (``id=Site_Ref,dwellings=No_Dwellin``).

Councils' files name columns their own way; a mapping names which of the file's columns holds
each of nrf's, and is checked against the file: a name the file does not hold is refused with
the file's own columns listed, never ignored (a typo would otherwise read every site as 0
dwellings or the default category).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.feature_properties import COLUMNS, columns_named
from nrf.domain.validation import RawFeature

_HOW = "write it as nrf_name=file_column pairs joined by commas, e.g. id=Site_Ref,dwellings=Units"


def parse_columns(text: str) -> dict[str, str]:
    """``id=Site_Ref,dwellings=No_Dwellin`` as a mapping; refuse names nrf does not read."""
    mapping: dict[str, str] = {}
    for pair in (p.strip() for p in text.split(",") if p.strip()):
        ours, _, theirs = (part.strip() for part in pair.partition("="))
        if not ours or not theirs:
            raise _refused(f"{pair[:60]!r} is not name=column; {_HOW}")
        if ours not in COLUMNS:
            raise _refused(f"{ours[:60]!r} is not a column nrf reads ({', '.join(COLUMNS)})")
        if ours in mapping:
            raise _refused(f"{ours} is given twice")
        mapping[ours] = theirs
    return mapping


def renamed(features: Sequence[RawFeature], mapping: Mapping[str, str]) -> list[RawFeature]:
    """Features whose mapped columns carry nrf's names (a name matched exactly, else in any
    case); the mapped column wins over one the file already has under nrf's name."""
    if not mapping:
        return list(features)
    names = list(dict.fromkeys(str(k) for f in features for k in f.properties))
    folded = {name.casefold(): name for name in names}
    found: dict[str, str] = {}
    for ours, theirs in mapping.items():
        key = theirs if theirs in names else folded.get(theirs.casefold())
        if key is None:
            message = f"the file has no column {theirs[:60]!r} (given for {ours}); "
            raise InvalidInput(
                [Problem(code="missing_column", message=message + columns_named(names), field=ours)]
            )
        found[key] = ours
    return [
        attrs.evolve(
            f,
            properties={
                **{k: v for k, v in f.properties.items() if k not in found.values()},
                **{ours: f.properties[key] for key, ours in found.items() if key in f.properties},
            },
        )
        for f in features
    ]


def _refused(why: str) -> InvalidInput:
    return InvalidInput([Problem(code="invalid_columns", message=f"the column mapping: {why}")])
