"""Every CSV we write neutralises text a spreadsheet would run as a formula (OWASP's advice)."""

from __future__ import annotations

import csv
import io

import attrs
import pytest

from nrf.adapters.outputs import legacy_csv, levy_csv
from nrf.adapters.outputs.csv_safety import neutralise
from support.runs import RUN


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("  =1+1", "'  =1+1"),  # spaces first, then a trigger
        ("\t=1+1", "'\t=1+1"),
        ("\tplain", "'\tplain"),  # a leading tab or carriage return is itself a trigger
        ("\r1", "'\r1"),
    ],
)
def test_a_cell_a_spreadsheet_would_run_gets_a_leading_apostrophe(text: str, written: str) -> None:
    assert neutralise(text) == written


@pytest.mark.parametrize("text", ["Mill Lane", "Richardson’s Yard", "A-road 1", "x=1", "", "3"])
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert neutralise(text) == text


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.removeprefix(levy_csv.BOM))))


def test_the_legacy_and_levy_tables_neutralise_names_but_never_numbers() -> None:
    first = RUN.sites[0]
    named = attrs.evolve(first, site=attrs.evolve(first.site, name="=cmd()", id="@1"))
    legacy = _cells(legacy_csv.render([named]))
    assert (legacy[1][1], legacy[1][2]) == ("'@1", "'=cmd()")
    levy = _cells(levy_csv.render(attrs.evolve(RUN, sites=(named,), out_of_scope=())))
    assert (levy[1][1], levy[1][2]) == ("'@1", "'=cmd()")
    # Site 4's N total is -0.25: a number we print, left as a number.
    outside = next(s for s in RUN.sites if s.site.id == "S4")
    assert legacy_csv.site_row(outside)[legacy_csv.COLUMNS.index("N_Total")] == "-0.25"


def test_ordinary_legacy_rows_are_byte_for_byte_as_before() -> None:
    # The 31 columns of support/runs.py's site 1, as the table wrote them before neutralising.
    mill = next(s for s in RUN.sites if s.site.id == "S1")
    assert legacy_csv.render([mill]).splitlines()[1] == (
        "1,S1,Mill Lane,housing,t,10,1.0,1.0,,,X,1,,,,,,,2.4,110.0,0.0,,,,,0.0,0.0,0.0,0.0,2.0,0.5"
    )
