"""The levy table a planner opens in Excel: one row per site and EDP, money as plain numbers.

The legacy 31-column table carries no money and must stay byte-for-byte as the tools that
read it expect, so the levy goes in a second table beside it. Written for Excel: UTF-8 with
a byte-order mark (or ``Richardson’s`` turns to mojibake), CRLF line ends, every figure
printed to exactly two decimals (never ``0.8200000000000001``). Each row is a part of the
whole, so a column's sum in Excel is the batch's total (the last row states it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal

from nrf.adapters.outputs.csv_lines import csv_lines
from nrf.adapters.outputs.spooled_run import in_input_order
from nrf.domain.results import AssessmentRun, EdpLevy, LevyQuote, SiteAssessment, SiteIdentity

BOM = "\ufeff"
COLUMNS = (
    "RLB_ID",
    "id",
    "Name",
    "Dwellings",
    "Status",
    "EDP_ID",
    "EDP_Name",
    "N_kg_per_year",
    "P_kg_per_year",
    "Levy_GBP",
    "Monitoring_GBP",
    "Maintenance_GBP",
    "Admin_GBP",
    "Mitigation_GBP",
    "Note",
)
NO_CATCHMENT = "outside every nutrient-neutrality catchment: no levy"
NO_RATE = "the reference data has no levy rate for this EDP"


def number(value: float | Decimal | None) -> str:
    """Two decimals, no float noise, no ``-0.00``; empty for None."""
    if value is None:
        return ""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def _money(quote: LevyQuote | None) -> list[str]:
    if quote is None:
        return [""] * 5
    return [
        number(quote.levy_gbp),
        number(quote.monitoring_gbp),
        number(quote.maintenance_gbp),
        number(quote.admin_gbp),
        number(quote.mitigation_gbp),
    ]


def _who(site: SiteIdentity) -> list[str]:
    return [str(site.rlb_id), site.id, site.name, str(site.dwellings)]


def _edp_row(site: SiteAssessment, edp: EdpLevy) -> list[str]:
    return [
        *_who(site.site),
        "assessed",
        edp.edp_id,
        edp.edp_name or "",
        number(edp.n_total),
        number(edp.p_total),
        *_money(edp.quote),
        "" if edp.quote else NO_RATE,
    ]


def _site_rows(site: SiteAssessment) -> list[list[str]]:
    if site.levy_by_edp:
        return [_edp_row(site, edp) for edp in site.levy_by_edp]
    return [
        [
            *_who(site.site),
            "assessed",
            "",
            "",
            number(site.n_total),
            number(site.p_total),
            *_money(site.levy),
            NO_CATCHMENT,
        ]
    ]


def table(run: AssessmentRun, notice: str | None = None) -> list[list[str]]:
    """Every row: the notice (when given), the header, a row per site and EDP, the total."""
    return list(table_rows(run, notice))


def table_rows(run: AssessmentRun, notice: str | None = None) -> Iterator[list[str]]:
    """The rows of ``table``, each made when asked for (a spooled run is read as it goes)."""
    if notice:
        yield [notice]
    yield list(COLUMNS)
    for item in in_input_order(run.sites, run.out_of_scope):
        if isinstance(item, SiteAssessment):
            yield from _site_rows(item)
        else:
            yield [*_who(item.site), "out_of_scope", *[""] * 9, item.reason]
    n_total = sum(Decimal(number(s.n_total)) for s in run.sites)
    p_total = sum(Decimal(number(s.p_total)) for s in run.sites)
    yield [
        "",
        "TOTAL",
        f"{len(run.sites)} sites assessed, {len(run.out_of_scope)} out of scope",
        "",
        "",
        "",
        "",
        number(n_total),
        number(p_total),
        *_money(run.levy_total),
        "",
    ]


def row_count(run: AssessmentRun, notice: str | None = None) -> int:
    """How many rows ``table_rows`` gives, without making them (for progress)."""
    per_site = sum(max(1, len(site.levy_by_edp)) for site in run.sites)
    return (1 if notice else 0) + 1 + per_site + len(run.out_of_scope) + 1


def lines(rows: Iterable[list[str]], tick: Callable[[], None] | None = None) -> Iterator[str]:
    """The file's text a row at a time: the BOM first, CRLF line ends."""
    yield BOM
    yield from csv_lines(rows, "\r\n", tick)


def render(run: AssessmentRun, notice: str | None = None) -> str:
    """The table as text (BOM first); ``notice`` (synthetic data) is the first line when given."""
    return "".join(lines(table(run, notice)))
