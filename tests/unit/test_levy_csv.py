"""The planner's levy table: BOM, plain two-decimal numbers, rows that add up, the notice."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from nrf.adapters.outputs import levy_csv
from support.runs import RUN


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.removeprefix(levy_csv.BOM))))


def test_utf8_with_a_bom_and_crlf_so_excel_reads_it() -> None:
    data = levy_csv.render(RUN).encode("utf-8")
    assert data.startswith(b"\xef\xbb\xbf")
    assert "Richardson’s Yard".encode() in data
    assert data.count(b"\r\n") == 1 + 5 + 1  # header, 5 rows (site 2 has two), total


def test_one_row_per_site_and_edp_in_input_order() -> None:
    table = rows(levy_csv.render(RUN))
    assert tuple(table[0]) == levy_csv.COLUMNS
    body = [dict(zip(table[0], r, strict=True)) for r in table[1:-1]]
    assert [(r["RLB_ID"], r["EDP_ID"]) for r in body] == [
        ("1", "EDP-W"),
        ("2", "EDP-W"),
        ("2", "EDP-B"),
        ("3", ""),
        ("4", ""),
    ]
    mill, wensum, broads, barn, outside = body
    assert (wensum["N_kg_per_year"], wensum["Levy_GBP"], wensum["Mitigation_GBP"]) == (
        "0.82",
        "100.00",
        "82.50",  # 100.00 - 10.00 - 5.00 - 2.50
    )
    assert broads["Levy_GBP"] == "" and "no levy rate" in broads["Note"]
    assert barn["Status"] == "out_of_scope" and barn["Note"] == "why" and barn["Levy_GBP"] == ""
    assert outside["N_kg_per_year"] == "-0.25" and "outside every" in outside["Note"]
    assert mill["Monitoring_GBP"] == "5.01"


def test_every_figure_has_two_decimals_and_the_columns_add_up_to_the_total() -> None:
    table = rows(levy_csv.render(RUN))
    header, body, total = table[0], table[1:-1], dict(zip(table[0], table[-1], strict=True))
    money = [c for c in header if c.endswith("_GBP")]
    for row in body:
        for name, cell in zip(header, row, strict=True):
            if name in money or name.endswith("_per_year"):
                assert cell == "" or cell.lstrip("-").replace(".", "", 1).isdigit()
                assert cell == "" or len(cell.split(".")[1]) == 2
    for name in money:
        column = sum(Decimal(dict(zip(header, r, strict=True))[name] or 0) for r in body)
        assert column == Decimal(total[name])
    # N: 2.00 + 0.82 + 1.50 - 0.25 = 4.07 (the site totals 2.00 + 2.32 - 0.25).
    assert total["N_kg_per_year"] == "4.07" and total["Levy_GBP"] == "150.10"
    assert total["id"] == "TOTAL"


def test_the_synthetic_notice_heads_the_file_only_when_given() -> None:
    assert rows(levy_csv.render(RUN))[0][0] == "RLB_ID"
    with_notice = rows(levy_csv.render(RUN, "SYNTHETIC DEMONSTRATION DATA: not real"))
    assert with_notice[0] == ["SYNTHETIC DEMONSTRATION DATA: not real"]
    assert with_notice[1][0] == "RLB_ID"


def test_numbers_are_plain() -> None:
    assert levy_csv.number(0.1 + 0.72) == "0.82"
    assert levy_csv.number(-0.001) == "0.00"
    assert levy_csv.number(Decimal("1234567.5")) == "1234567.50"
    assert levy_csv.number(None) == ""
