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
from nrf.domain.results import RunWarning
from nrf.domain.set_aside_columns import set_aside_warnings
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
    return renamed_and_told(features, mapping)[0]


def renamed_and_told(
    features: Sequence[RawFeature], mapping: Mapping[str, str]
) -> tuple[list[RawFeature], tuple[RunWarning, ...]]:
    """``renamed``'s features, and a warning naming each column of the file it sets aside."""
    if not mapping:
        return list(features), ()
    names = list(dict.fromkeys(str(k) for f in features for k in f.properties))
    found = mapped_columns(names, mapping)
    return [renamed_feature(f, found) for f in features], set_aside_warnings(names, found)


def mapped_columns(names: Sequence[str], mapping: Mapping[str, str]) -> dict[str, str]:
    """For each mapped column of the file (its name there), nrf's name; refused when the file
    (whose columns are ``names``) has no such column."""
    folded = {name.casefold(): name for name in names}
    found: dict[str, str] = {}
    for ours, theirs in mapping.items():
        key = theirs if theirs in names else folded.get(theirs.casefold())
        if key is None:
            message = f"the file has no column {theirs[:60]!r} (given for {ours}); "
            raise InvalidInput(
                [
                    Problem(
                        code="missing_column",
                        message=message + columns_named(list(names)),
                        field=ours,
                    )
                ]
            )
        if key in found:
            # A column fills one of nrf's: the first would otherwise silently read as absent.
            why = f"the file's column {key[:60]!r} is given for both {found[key]} and {ours}"
            raise _refused(f"{why}; map each column once")
        found[key] = ours
    return found


def renamed_feature(feature: RawFeature, found: Mapping[str, str]) -> RawFeature:
    """One feature with ``found``'s columns under nrf's names (see ``mapped_columns``)."""
    if not found:
        return feature
    properties = feature.properties
    return attrs.evolve(
        feature,
        properties={
            **{k: v for k, v in properties.items() if k not in found.values()},
            **{ours: properties[key] for key, ours in found.items() if key in properties},
        },
    )


def renamed_keys(keys: Sequence[str], found: Mapping[str, str]) -> tuple[str, ...]:
    """The property names a feature with ``keys`` has once renamed (``renamed_feature``)."""
    kept = [k for k in keys if k not in found.values()]
    return (*kept, *dict.fromkeys(ours for key, ours in found.items() if key in keys))


def _refused(why: str) -> InvalidInput:
    return InvalidInput([Problem(code="invalid_columns", message=f"the column mapping: {why}")])
