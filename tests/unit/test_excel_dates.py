"""Slash dates are read day first only when the file itself shows it, never guessed."""

from __future__ import annotations

from typing import Any

from nrf.bundles.excel_dates import day_first_dates
from nrf.bundles.qc.report import QcReport

ROLES = ("charge_valid_from", "charge_valid_to")


def read(*pairs: tuple[str, str]) -> tuple[list[dict[str, Any]], QcReport]:
    rows: list[dict[str, Any]] = [
        {"_line": n, "charge_valid_from": a, "charge_valid_to": b}
        for n, (a, b) in enumerate(pairs, start=2)
    ]
    report = QcReport()
    day_first_dates("levy_charges", "charges.csv", rows, ROLES, report)
    return rows, report


def test_a_file_whose_dates_show_day_first_is_read_day_first_each_date_listed() -> None:
    rows, report = read(("01/04/2026", "31/03/2027"), ("1/4/2027", "2028-03-31"))
    assert [(r["charge_valid_from"], r["charge_valid_to"]) for r in rows] == [
        ("2026-04-01", "2027-03-31"),
        ("2027-04-01", "2028-03-31"),  # an ISO date is left as it is
    ]
    assert len([f for f in report.findings if f.code == "cleaned"]) == 3


def test_dates_that_could_be_either_way_are_left_for_the_gate() -> None:
    rows, report = read(("01/04/2026", "03/04/2027"))
    assert rows[0]["charge_valid_from"] == "01/04/2026" and not report.findings


def test_a_file_that_contradicts_itself_is_left_for_the_gate() -> None:
    # 31/03 is only day first; 04/30 only month first: the file says both, so neither.
    rows, _ = read(("31/03/2026", "04/30/2027"))
    assert rows[0] == {
        "_line": 2,
        "charge_valid_from": "31/03/2026",
        "charge_valid_to": "04/30/2027",
    }


def test_a_day_first_date_that_is_no_date_is_left_for_the_gate() -> None:
    rows, _ = read(("31/02/2026", "31/03/2027"))
    assert rows[0]["charge_valid_from"] == "31/02/2026"
    assert rows[0]["charge_valid_to"] == "2027-03-31"


def test_a_date_whose_day_and_month_are_equal_is_the_same_either_way_and_is_read() -> None:
    # 01/01/2026 is 1 January whichever order is meant: nothing to prove, so it is read even
    # in a file whose other dates could be either (those are still left for the gate).
    rows, report = read(("01/01/2026", "03/04/2027"))
    assert rows[0] == {
        "_line": 2,
        "charge_valid_from": "2026-01-01",
        "charge_valid_to": "03/04/2027",
    }
    [cleaned] = [f for f in report.findings if f.code == "cleaned"]
    assert "'01/01/2026' read as 2026-01-01" in cleaned.detail

    # ...but not in a file that shows both orders: none of its dates is trusted.
    rows, _ = read(("31/03/2026", "04/30/2027"), ("01/01/2028", "2028-12-31"))
    assert rows[1]["charge_valid_from"] == "01/01/2028"
