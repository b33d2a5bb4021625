"""A CSV's cleaned rows kept on disk, not in memory, each distinct row once, in file order.

A levy CSV is judged whole before anything is written (a bad row refuses the build), so its
rows must be kept somewhere until the bundle is staged; held as Python rows, a million of
them cost the build 1.8 GB. They go to a private temporary SQLite database instead (SQLite
deletes it when the spool is closed) whose page cache is capped, so the memory is the same
for ten rows or ten million; its UNIQUE index tells an exact repeat of an earlier row.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from nrf.bundles.scratch_database import scratch_database


class RowSpool:
    """Rows of ``width`` text values, each with its line number, kept on disk."""

    def __init__(self, width: int) -> None:
        values = ", ".join(f"v{n}" for n in range(width))
        self._db = scratch_database(
            f"CREATE TABLE rows (line INTEGER PRIMARY KEY, {values}, UNIQUE ({values}))"
        )
        self._insert = f"INSERT OR IGNORE INTO rows VALUES (?{', ?' * width})"

    def add(self, line: int, values: Sequence[str]) -> bool:
        """Keep the row; False (and not kept) when an identical row was kept already."""
        return self._db.execute(self._insert, (line, *values)).rowcount == 1

    def __iter__(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        """(line, values) of each row kept, in file order."""
        for line, *values in self._db.execute("SELECT * FROM rows ORDER BY line"):
            yield line, tuple(values)

    def close(self) -> None:
        self._db.close()
