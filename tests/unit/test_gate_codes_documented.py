"""Every quality-gate code is in docs/reference-data.md's table, so a reviewer can look it up."""

from __future__ import annotations

from pathlib import Path

from nrf.bundles.qc.codes import RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "reference-data.md"


def test_every_gate_code_has_a_row_in_the_documented_table() -> None:
    rows = {
        line.split("|")[1].strip() for line in DOC.read_text().splitlines() if line[:3] == "| `"
    }
    assert {f"`{code}`" for code in RULES} <= rows
