"""The terminal's table and the demo's job table tell the levy as the report does."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from nrf.adapters.outputs.result_files import result_document
from nrf.adapters.terminal.demo_report import results_table, stored_job_row
from nrf.adapters.terminal.report_table import table_lines
from nrf.domain.output_stamp import OutputStamp
from support.runs import RUN

STAMP = OutputStamp(made_at=datetime(2026, 11, 26, 9, 5, 7, tzinfo=UTC), input_name="sites.geojson")


def test_the_terminal_table_shows_quotes_refusals_and_the_vat() -> None:
    text = "\n".join(table_lines(RUN, STAMP))
    assert "made 2026-11-26 09:05:07 UTC from sites.geojson" in text
    lines: dict[str, str] = {}
    for line in text.splitlines():
        if line[:4].strip().isdigit():
            lines.setdefault(line.split()[1], line)  # the table's row, not the refusal list
    assert lines["S1"].endswith("£26,750.00") and lines["S5"].endswith("£8,386.14")
    assert lines["S2"].rstrip().endswith("not quoted (excluded_area)")
    # 26,750.00 + 8,386.14 = 35,136.14; VAT 5,350.00 + 1,677.23 = 7,027.23; total 42,163.37.
    assert (
        "levy £35,136.14 excluding VAT, VAT £7,027.23, £42,163.37 including VAT "
        "(2 quoted, 2 refused)"
    ) in text
    assert "excluded_area: the boundary meets excluded areas" in text


def test_the_demo_reads_the_quoted_levy_and_the_refusal_codes(tmp_path: Path) -> None:
    folder = tmp_path / "job-1"
    folder.mkdir()
    (folder / "status.json").write_text(json.dumps({"status": "succeeded"}))
    (folder / "result.json").write_text(json.dumps(result_document(RUN)))
    row = stored_job_row(tmp_path, "job-1")
    assert row.levy == Decimal("35136.14")
    assert row.codes == ("levy excluded_area", "levy no_edp")
    assert "levy quoted £35,136.14 excluding VAT" in results_table([row])
