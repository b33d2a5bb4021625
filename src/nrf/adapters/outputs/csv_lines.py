"""CSV text a record at a time, so a large table is written as it is made, with progress."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator, Sequence


def csv_lines(
    rows: Iterable[Sequence[object]], lineterminator: str, tick: Callable[[], None] | None = None
) -> Iterator[str]:
    """Each row as the csv module writes it (quoting included); ``tick`` after each one."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=lineterminator)
    for row in rows:
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        if tick is not None:
            tick()


class Ticker:
    """Counts records written across several files and reports (done, total) to a progress."""

    def __init__(self, progress: Callable[[int, int], None] | None, total: int) -> None:
        self.progress = progress
        self.total = total
        self.done = 0

    def __call__(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)
