"""The planner's levy table: BOM, plain two-decimal numbers, rows that add up, the notice."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from nrf.adapters.outputs import levy_csv
from nrf.domain.results import (
    AssessmentRun,
    EdpLevy,
    LevyQuote,
    OutOfScopeSite,
    Provenance,
    SiteAssessment,
    SiteIdentity,
)

PROVENANCE = Provenance("iat-2026-04", "test", "1", "0" * 64, False, "0.1.0")


def quote(levy: str, monitoring: str, maintenance: str, admin: str) -> LevyQuote:
    parts = [Decimal(levy), Decimal(monitoring), Decimal(maintenance), Decimal(admin)]
    return LevyQuote(*parts, mitigation_gbp=parts[0] - sum(parts[1:]))


def site(
    rlb_id: int, name: str, n: float, p: float, edps: tuple[EdpLevy, ...], levy: LevyQuote
) -> SiteAssessment:
    identity = SiteIdentity(rlb_id, f"S{rlb_id}", name, "housing", "t", 10)
    return SiteAssessment(
        site=identity, dev_area_ha=1.0, area_in_nn_catchment_ha=1.0, nn_catchments=(),
        dev_subcatchment=None, majority_lpa="X", majority_wwtw_id=1, wwtw_name=None,
        wwtw_subcatchment=None, n_lu_uplift=None, p_lu_uplift=None, n_lu_post_suds=None,
        p_lu_post_suds=None, occupancy_rate=2.4, water_usage_l_per_person_day=110.0,
        rates_source="default", litres_used=0.0, n_conc_2025_2030=None, n_conc_2030_on=None,
        p_conc_2025_2030=None, p_conc_2030_on=None, n_wwtw_temp=0.0, p_wwtw_temp=0.0,
        n_wwtw_perm=0.0, p_wwtw_perm=0.0, n_total=n, p_total=p, catchments=(),
        levy_by_edp=edps, levy=levy,
    )  # fmt: skip


# Site 2 straddles two EDPs: 0.1 + 0.72 kg N (a float sum: 0.8200000000000001 in Python).
WENSUM = EdpLevy("EDP-W", "Wensum", 0.1 + 0.72, 0.05, quote("100.00", "10.00", "5.00", "2.50"))
BROADS = EdpLevy("EDP-B", "Broads", 1.5, 0.25, None)  # no rate for this EDP in the bundle
LONE = EdpLevy("EDP-W", "Wensum", 2.0, 0.5, quote("50.10", "5.01", "2.51", "1.25"))
RUN = AssessmentRun(
    provenance=PROVENANCE,
    sites=(
        site(2, "Richardson’s Yard", 2.32, 0.3, (WENSUM, BROADS), WENSUM.quote),  # type: ignore[arg-type]
        site(1, "Mill Lane", 2.0, 0.5, (LONE,), LONE.quote),  # type: ignore[arg-type]
        site(4, "Outside", -0.25, 0.0, (), quote("0.00", "0.00", "0.00", "0.00")),
    ),
    out_of_scope=(
        OutOfScopeSite(SiteIdentity(3, "S3", "Barn", "housing", "t", 0), "no_dwellings", "why"),
    ),
    # 100.00 + 50.10 = 150.10; 10.00 + 5.01 = 15.01; 5.00 + 2.51 = 7.51; 2.50 + 1.25 = 3.75.
    levy_total=quote("150.10", "15.01", "7.51", "3.75"),
)


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
        ("1", "EDP-W"), ("2", "EDP-W"), ("2", "EDP-B"), ("3", ""), ("4", ""),
    ]  # fmt: skip
    mill, wensum, broads, barn, outside = body
    assert (wensum["N_kg_per_year"], wensum["Levy_GBP"], wensum["Mitigation_GBP"]) == (
        "0.82", "100.00", "82.50",  # 100.00 - 10.00 - 5.00 - 2.50
    )  # fmt: skip
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
