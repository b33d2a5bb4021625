"""Which files an output path writes, and the error for one that cannot be written.

Kept free of heavy imports: `nrf` reads it while parsing arguments, before any work.
"""

from __future__ import annotations

from pathlib import Path

from nrf.domain.errors import NrfError

SUFFIXES = (".csv", ".json", ".geojson", ".html")


class OutputNotWritable(NrfError):
    """An output file that the operating system would not let us write (folder, share, disk)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__("cannot_write_output", f"cannot write {str(path)!r}: {reason}")


def output_paths(path: Path) -> list[Path]:
    """Every file an output ``path`` writes: a CSV also writes its levy table and provenance."""
    if path.suffix.lower() == ".csv":
        return [path, path.with_suffix(".levy.csv"), path.with_suffix(".provenance.json")]
    return [path]
