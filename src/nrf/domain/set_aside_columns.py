"""A file's own column for one of nrf's names, passed over by a column mapping: told, not silent.

With ``dwellings=Units`` the file's ``dwellings`` column (or ``Dwellings``, ``DWELLINGS``: any
name nrf would otherwise read dwellings from) is not read. That is what was asked, but a file
holding both may be one whose own column was the right one, and every site would be priced on
the other without a word; so the run names each column set aside and the column read instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attrs import frozen

from nrf.domain.feature_properties import COLUMNS
from nrf.domain.results import RunWarning

CODE = "column_set_aside"


@frozen(kw_only=True)
class SetAside:
    """The file's column ``ignored`` would have been read as ``ours``; ``used`` is read."""

    ours: str
    ignored: str
    used: str


def set_aside(names: Sequence[str], found: Mapping[str, str]) -> list[SetAside]:
    """Each column of ``names`` that nrf reads as a mapped name but the mapping passes over
    (``found``: the file's mapped column -> nrf's name); a column mapped itself is read."""
    columns: list[SetAside] = []
    for used, ours in found.items():
        read_as = {name.casefold() for name in (ours, COLUMNS[ours], ours[:10])}
        columns.extend(
            SetAside(ours=ours, ignored=name, used=used)
            for name in names
            if name not in found and name.casefold() in read_as
        )
    return columns


def set_aside_warnings(names: Sequence[str], found: Mapping[str, str]) -> tuple[RunWarning, ...]:
    """A ``column_set_aside`` warning for each column ``set_aside`` finds; () when none."""
    return tuple(
        RunWarning(
            code=CODE,
            message=(
                f"the file's column {column.ignored[:60]!r} is not read: the column mapping "
                f"reads {column.ours} from {column.used[:60]!r}"
            ),
        )
        for column in set_aside(names, found)
    )
