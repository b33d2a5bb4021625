"""The planner's levy table: BOM, header in row 1, what priced each quote, refusals as such."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal

from nrf.adapters.outputs import levy_csv
from nrf.domain.output_stamp import OutputStamp
from support.runs import RUN

STAMP = OutputStamp(
    made_at=datetime(2026, 11, 26, 9, 5, 7, tzinfo=UTC),
    input_name="sites.geojson",
    reference="NRL-000123",
)


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.removeprefix(levy_csv.BOM))))


def by_site(text: str) -> dict[str, dict[str, str]]:
    table = rows(text)
    return {r[1]: dict(zip(table[0], r, strict=True)) for r in table[1:]}


def test_utf8_with_a_bom_and_crlf_so_excel_reads_it() -> None:
    data = levy_csv.render(RUN).encode("utf-8")
    assert data.startswith(b"\xef\xbb\xbf")
    assert "Richardson’s Yard".encode() in data
    assert data.count(b"\r\n") == 1 + 5 + 1  # header, 5 sites (one out of scope), total


def test_the_header_is_row_one_even_with_the_synthetic_notice() -> None:
    table = rows(levy_csv.render(RUN, "SYNTHETIC: made up"))
    assert tuple(table[0]) == levy_csv.COLUMNS
    assert all(r[-1] == "SYNTHETIC: made up" for r in table[1:])  # on every row, filter-proof
    assert all(r[-1] == "" for r in rows(levy_csv.render(RUN))[1:])


def test_a_quote_records_everything_that_priced_it() -> None:
    mill = by_site(levy_csv.render(RUN, None, STAMP))["S1"]
    # 10 units x £2,675.00 = £26,750.00; VAT 20 % = £5,350.00; total £32,100.00.
    assert {k: mill[k] for k in ("Status", "EDP_ID", "EDP_Name", "Units")} == {
        "Status": "quoted",
        "EDP_ID": "1",
        "EDP_Name": "Norfolk",
        "Units": "10",
    }
    assert (mill["Charge_Valid_From"], mill["Charge_Valid_To"]) == ("2026-04-01", "2027-03-31")
    assert mill["Base_Charge_Per_Unit_GBP"] == "2675.0000" and mill["Index_Factors"] == ""
    assert (mill["Charge_Per_Unit_GBP"], mill["Levy_Excl_VAT_GBP"]) == ("2675.00", "26750.00")
    assert (mill["VAT_Rate"], mill["VAT_GBP"], mill["Levy_Incl_VAT_GBP"]) == (
        "0.20",
        "5350.00",
        "32100.00",
    )
    assert mill["Quote_Date"] == "2026-11-26" and mill["Calculator_Version"] == "edp-schedule-1"
    assert (mill["Quote_Reference"], mill["Input"], mill["Made_At"]) == (
        "NRL-000123",
        "sites.geojson",
        "2026-11-26 09:05:07 UTC",
    )


def test_an_indexed_quote_shows_both_factors_and_the_provisional_amount() -> None:
    later = by_site(levy_csv.render(RUN))["S5"]
    # 2,675.0000 x 1.0450 / 1.0000 = 2,795.375 -> 2,795.38; x 3 = 8,386.14; provisional
    # 3 x 2,675.00 = 8,025.00; VAT 1,677.228 -> 1,677.23; total 10,063.37.
    assert later["Index_Factors"] == "2026=1.0000; 2027=1.0450"
    assert (later["Charge_Per_Unit_GBP"], later["Provisional_GBP"]) == ("2795.38", "8025.00")
    assert (later["Levy_Excl_VAT_GBP"], later["Levy_Incl_VAT_GBP"]) == ("8386.14", "10063.37")


def test_a_refused_levy_has_its_code_and_no_money_that_looks_like_a_quote() -> None:
    sites = by_site(levy_csv.render(RUN))
    excluded, outside, barn = sites["S2"], sites["S4"], sites["S3"]
    assert excluded["Status"] == "refused" and excluded["Refusal_Code"] == "excluded_area"
    assert "Broad Fen SSSI buffer; (unnamed)" in excluded["Note"]
    assert "Habitats Regulations Assessment" in excluded["Note"]
    assert outside["Refusal_Code"] == "no_edp" and outside["N_kg_per_year"] == "-0.25"
    assert barn["Status"] == "out_of_scope" and barn["Refusal_Code"] == "no_dwellings"
    for refused in (excluded, outside, barn):
        assert all(refused[name] == "" for name in levy_csv.MONEY)


def test_every_figure_has_two_decimals_and_the_money_adds_up_to_the_total() -> None:
    table = rows(levy_csv.render(RUN))
    header, body, total = table[0], table[1:-1], dict(zip(table[0], table[-1], strict=True))
    for row in body:
        for name, cell in zip(header, row, strict=True):
            if name in levy_csv.MONEY or name.endswith("_per_year"):
                assert cell == "" or len(cell.split(".")[1]) == 2
    for name in levy_csv.MONEY:
        column = sum(Decimal(dict(zip(header, r, strict=True))[name] or 0) for r in body)
        assert column == Decimal(total[name])
    # Excluding VAT 26,750.00 + 8,386.14 = 35,136.14; including 32,100.00 + 10,063.37 =
    # 42,163.37; N 2.00 + 2.32 - 0.25 + 1.00 = 5.07.
    assert (total["Levy_Excl_VAT_GBP"], total["Levy_Incl_VAT_GBP"]) == ("35136.14", "42163.37")
    assert total["N_kg_per_year"] == "5.07" and total["Units"] == "13"
    assert total["Name"] == "2 quoted, 2 refused, 1 out of scope"


def test_a_refused_row_carries_the_quote_date_it_was_refused_on() -> None:
    from datetime import date

    stamp = OutputStamp(
        made_at=datetime(2026, 11, 26, 9, 5, 7, tzinfo=UTC),
        input_name="s.geojson",
        reference="NRL-7",
        quote_date=date(2027, 3, 1),
    )
    sites = by_site(levy_csv.render(RUN, None, stamp))
    for refused in (sites["S2"], sites["S4"]):
        assert refused["Status"] == "refused"
        assert refused["Quote_Date"] == "2027-03-01"
        assert refused["Units"] == "" and refused["Quote_Reference"] == "NRL-7"
    # A quoted row keeps the date its pricing gives.
    assert sites["S1"]["Quote_Date"] == "2026-11-26"
