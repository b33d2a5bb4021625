"""deleted_records: the positions of a .dbf's records flagged deleted, in every block read."""

from __future__ import annotations

from pathlib import Path

import pytest

from nrf.adapters.site_boundaries.dbf_records import deleted_records
from nrf.domain.errors import InvalidInput


def dbf(path: Path, rows: int, deleted: set[int], *, cut: int = 0) -> Path:
    """A .dbf of one 1-character field: a 32-byte header and a terminator, then each record's
    flag (``*`` deleted, else a space) and its character."""
    header = bytearray(32)
    header[0] = 3
    header[4:8] = rows.to_bytes(4, "little")
    header[8:10] = (33).to_bytes(2, "little")  # where the records start
    header[10:12] = (2).to_bytes(2, "little")  # bytes a record
    records = b"".join((b"*" if n in deleted else b" ") + b"x" for n in range(rows))
    data = bytes(header) + b"\r" + records
    path.write_bytes(data[: len(data) - cut])
    return path


def test_deleted_records_are_found_in_the_first_block_and_in_later_ones(tmp_path: Path) -> None:
    # 20,000 records are read in three blocks of up to 8,192: a position is the record's in the
    # file, not in its block (record 9,000 is not record 808).
    path = dbf(tmp_path / "a.dbf", 20_000, {0, 808, 9_000, 19_999})
    assert deleted_records(path, 20_000) == {0, 808, 9_000, 19_999}


def test_a_file_without_deleted_records_has_none(tmp_path: Path) -> None:
    assert deleted_records(dbf(tmp_path / "a.dbf", 100, set()), 100) == frozenset()


def test_a_dbf_too_short_for_its_records_is_refused(tmp_path: Path) -> None:
    path = dbf(tmp_path / "a.dbf", 100, set(), cut=1)
    with pytest.raises(InvalidInput) as caught:
        deleted_records(path, 100)
    assert caught.value.codes == ["source_corrupt"]
