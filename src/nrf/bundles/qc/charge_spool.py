"""A schedule's usable charges kept on disk while the gate judges them, however many rows.

The gate compares every charge with the others of its EDP, so it once held every row, and
then every charge, as Python objects: a million-row schedule cost the build well over a
gigabyte. The charges go to a private temporary SQLite database instead (deleted when the
spool is closed, its page cache capped), and the windows that share a day are found by a join
on an index of (EDP, first day): for each window, in the order of its EDP's first window,
then by first and last day, each later one that starts before it ends, as the pairs were
found in memory. Dates are kept as ISO text, whose order is the dates'.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from attrs import frozen

from nrf.bundles.scratch_database import scratch_database

_FIELDS = "edp_id, edp_name, start, valid_from, valid_to, key, place"
_A = ", ".join(f"a.{f}" for f in _FIELDS.split(", "))
_B = ", ".join(f"b.{f}" for f in _FIELDS.split(", "))
# Each forward window (a) with each later one of its EDP (b) that starts on or before a ends;
# "later" as a stable sort by (first day, last day) orders them: ties in file order. CROSS
# JOIN keeps SQLite's order, a scanned and b found by the index: a million windows are a
# million lookups, never a million squared.
_OVERLAPS = f"""
SELECT {_A}, {_B}
FROM charges AS a CROSS JOIN charges AS b CROSS JOIN edps
WHERE a.valid_to >= a.valid_from
    AND b.edp_id = a.edp_id AND b.valid_from >= a.valid_from AND b.valid_from <= a.valid_to
    AND b.valid_to >= b.valid_from
    AND (b.valid_from, b.valid_to, b.seq) > (a.valid_from, a.valid_to, a.seq)
    AND edps.edp_id = a.edp_id
ORDER BY edps.rank, a.valid_from, a.valid_to, a.seq, b.valid_from, b.valid_to, b.seq
"""
# Each EDP ranked by its first forward window, as the windows were grouped in memory.
_EDPS = """
CREATE TABLE edps AS SELECT edp_id, min(seq) AS rank FROM charges
WHERE valid_to >= valid_from GROUP BY edp_id
"""


@frozen(kw_only=True)
class Charge:
    """A charge row whose every value is usable."""

    edp_id: int
    edp_name: str
    start: date
    valid_from: date
    valid_to: date
    key: str
    place: str


def _charge(row: tuple[object, ...]) -> Charge:
    edp_id, name, start, valid_from, valid_to, key, place = row
    return Charge(
        edp_id=int(str(edp_id)),
        edp_name=str(name),
        start=date.fromisoformat(str(start)),
        valid_from=date.fromisoformat(str(valid_from)),
        valid_to=date.fromisoformat(str(valid_to)),
        key=str(key),
        place=str(place),
    )


class ChargeSpool:
    """Charges in the order added, on disk."""

    def __init__(self) -> None:
        self._db = scratch_database(
            "CREATE TABLE charges (seq INTEGER PRIMARY KEY, edp_id INTEGER, edp_name TEXT, "
            "start TEXT, valid_from TEXT, valid_to TEXT, key TEXT, place TEXT)"
        )
        self._indexed = False

    def add(self, c: Charge) -> None:
        days = (c.start.isoformat(), c.valid_from.isoformat(), c.valid_to.isoformat())
        self._db.execute(
            f"INSERT INTO charges ({_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (c.edp_id, c.edp_name, *days, c.key, c.place),
        )

    def __iter__(self) -> Iterator[Charge]:
        for row in self._db.execute(f"SELECT {_FIELDS} FROM charges ORDER BY seq"):
            yield _charge(row)

    def reversed_windows(self) -> Iterator[Charge]:
        """Charges whose window ends before it starts, in the order added."""
        sql = f"SELECT {_FIELDS} FROM charges WHERE valid_to < valid_from ORDER BY seq"
        for row in self._db.execute(sql):
            yield _charge(row)

    def overlaps(self) -> Iterator[tuple[Charge, Charge]]:
        """(earlier, later) for each pair of one EDP's forward windows that share a day."""
        if not self._indexed:
            self._db.execute("CREATE INDEX by_start ON charges (edp_id, valid_from)")
            self._db.execute(_EDPS)
            self._db.execute("CREATE INDEX edp_rank ON edps (edp_id)")
            self._indexed = True
        width = len(_FIELDS.split(", "))
        for row in self._db.execute(_OVERLAPS):
            yield _charge(row[:width]), _charge(row[width:])

    def close(self) -> None:
        self._db.close()
