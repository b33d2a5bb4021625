"""A levy CSV's encoding is found a chunk at a time: a character cut by a chunk's end is whole.

The first pass reads the file in chunks (1 MiB; a few bytes here, so every boundary falls
somewhere in every character): a UTF-8 "£" split across two chunks is still UTF-8, and the
first bad byte is named at its offset and line whichever chunk it falls in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nrf.bundles import csv_encoding, schedule_csv
from nrf.bundles.qc.report import QcReport

COLUMNS = {"edp_id": "edp_id", "base_charge_per_unit": "base_charge_per_unit"}
TEXT = "edp_id,base_charge_per_unit\r\n1,£2675\r\n2,£2750\r\n"


def read(path: Path) -> tuple[list[dict[str, object]] | None, QcReport]:
    report = QcReport()
    rows = schedule_csv.read_csv_rows(
        "levy_charges", path, COLUMNS, report, money=("base_charge_per_unit",)
    )
    return (None if rows is None else list(rows)), report


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7])
def test_utf8_cut_anywhere_by_a_chunk_is_utf8(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(csv_encoding, "_CHUNK", chunk)
    path = tmp_path / "charges.csv"
    path.write_bytes(TEXT.encode())
    rows, report = read(path)
    assert rows == [
        {"_line": 2, "edp_id": "1", "base_charge_per_unit": "2675"},
        {"_line": 3, "edp_id": "2", "base_charge_per_unit": "2750"},
    ]
    assert not [f for f in report.findings if "Windows-1252" in f.detail]


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7])
def test_the_first_byte_outside_utf8_is_named_at_its_offset_and_line(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(csv_encoding, "_CHUNK", chunk)
    path = tmp_path / "charges.csv"
    # UTF-8 on line 2; a lone 0x81 (in neither UTF-8 nor Windows-1252) at offset 47, line 3.
    data = TEXT.encode()[:-2] + b"\x81\r\n"
    assert data.index(b"\x81") == 47
    path.write_bytes(data)
    rows, report = read(path)
    assert rows is None
    [finding] = [f for f in report.findings if f.code == "source_encoding"]
    assert finding.key == "charges.csv line 3"
    assert finding.detail.startswith("byte 0x81 at offset 47 is not UTF-8")


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7])
def test_a_byte_that_starts_a_character_never_finished_is_the_one_named(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Windows-1252 "Â" (0xc2) before "2": in UTF-8 it starts a character that "2" does not
    # continue, whichever chunk held it: the file is read as Windows-1252, naming that byte.
    monkeypatch.setattr(csv_encoding, "_CHUNK", chunk)
    path = tmp_path / "charges.csv"
    path.write_bytes(b"edp_id,base_charge_per_unit\r\n1,2675\r\n\xc22,2750\r\n")
    rows, report = read(path)
    assert rows is not None and rows[1]["edp_id"] == "\u00c22"
    [finding] = [f for f in report.findings if "Windows-1252" in f.detail]
    assert finding.key == "charges.csv line 3"
    assert "byte 0xc2 is 'Â'" in finding.detail
