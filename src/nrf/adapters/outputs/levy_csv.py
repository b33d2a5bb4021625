"""The levy table a planner opens in Excel: one row per site, money as plain numbers.

The legacy 31-column table carries no money and must stay byte-for-byte as the tools that
read it expect, so the levy goes in a second table beside it. Written for Excel: UTF-8 with
a byte-order mark (or ``Richardson’s`` turns to mojibake), CRLF line ends, every figure
printed to exactly two decimals (never ``0.8200000000000001``). The header is always row 1
(a filter or import never meets a notice first); the synthetic-data notice, when there is
one, is a column on every row, so no filtered view loses it. Each quote carries every input
that priced it (EDP, charge window and base, index factors, units, quote date, calculator).
A refused levy has empty money cells and its code: never a 0.00 that reads like a quote. The
money columns of quoted rows add up to the last row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal

from nrf.adapters.outputs.csv_lines import csv_lines
from nrf.adapters.outputs.csv_safety import neutralise
from nrf.adapters.outputs.spooled_run import in_input_order
from nrf.domain.levy_text import area_names, is_indexed
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.results import AssessmentRun, LevyPricing, SiteAssessment, SiteIdentity

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
    "Units",
    "Quote_Date",
    "Charge_Valid_From",
    "Charge_Valid_To",
    "Base_Charge_Per_Unit_GBP",
    "Index_Factors",
    "Charge_Per_Unit_GBP",
    "Provisional_GBP",
    "Levy_Excl_VAT_GBP",
    "VAT_Rate",
    "VAT_GBP",
    "Levy_Incl_VAT_GBP",
    "Calculator_Version",
    "Refusal_Code",
    "Note",
    "Quote_Reference",
    "Input",
    "Made_At",
    "Data_Notice",
)
MONEY = ("Provisional_GBP", "Levy_Excl_VAT_GBP", "VAT_GBP", "Levy_Incl_VAT_GBP")
_PRICING = 13  # Units .. Calculator_Version
HRA_NAME = "Habitats Regulations Assessment"
HRA = "not eligible for the levy: the route is a Habitats Regulations Assessment"


def two_places(value: float | Decimal | None) -> str:
    """Two decimals, no float noise, no ``-0.00``; empty for None."""
    if value is None:
        return ""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def _who(site: SiteIdentity) -> list[str]:
    return [str(site.rlb_id), neutralise(site.id), neutralise(site.name), str(site.dwellings)]


def _factors(pricing: LevyPricing) -> str:
    if not is_indexed(pricing):
        return ""
    return "; ".join(f"{r.charging_year}={r.index_factor}" for r in pricing.index_rows)


def _priced(pricing: LevyPricing) -> list[str]:
    return [
        str(pricing.units),
        pricing.quote_date.isoformat(),
        pricing.charge_valid_from.isoformat(),
        pricing.charge_valid_to.isoformat(),
        str(pricing.base_charge_per_unit),
        _factors(pricing),
        two_places(pricing.per_unit_charge),
        two_places(pricing.base_amount),
        two_places(pricing.amount_excluding_vat),
        str(pricing.vat_rate),
        two_places(pricing.vat),
        two_places(pricing.amount_including_vat),
        neutralise(pricing.calculator_version),
    ]


def _site_row(site: SiteAssessment, quote_date: str = "") -> list[str]:
    edp_id = edp_name = ""
    if site.pricing is not None:
        edp_id, edp_name = str(site.pricing.edp_id), site.pricing.edp_name
    elif len(site.edps) == 1:
        edp_id, edp_name = str(site.edps[0].edp_id), site.edps[0].edp_name
    figures = [two_places(site.n_total), two_places(site.p_total)]
    if site.pricing is not None:
        return [*_who(site.site), "quoted", edp_id, neutralise(edp_name), *figures]
    code, note = "no_price", "the assessment gave no price and no reason"
    if site.levy_refusal is not None:
        code, note = site.levy_refusal.code, site.levy_refusal.message
        if code == "excluded_area":
            note = f"{note} (excluded areas: {area_names(site.excluded_areas)})"
            if HRA_NAME not in note:
                note = f"{note}; {HRA}"
    head = [*_who(site.site), "refused", edp_id, neutralise(edp_name), *figures]
    # Not priced, but priced as of a day: the row says which (the Quote_Date column).
    return [*head, "", quote_date, *[""] * (_PRICING - 2), code, neutralise(note)]


def _tail(stamp: OutputStamp | None, notice: str | None) -> list[str]:
    if stamp is None:
        return ["", "", "", notice or ""]
    reference = neutralise(stamp.reference or "")
    return [reference, neutralise(stamp.input_name), stamp.made_at_text, notice or ""]


def table(
    run: AssessmentRun, notice: str | None = None, stamp: OutputStamp | None = None
) -> list[list[str]]:
    """Every row: the header, a row per site (input order), the total of the quoted levies."""
    return list(table_rows(run, notice, stamp))


def table_rows(
    run: AssessmentRun, notice: str | None = None, stamp: OutputStamp | None = None
) -> Iterator[list[str]]:
    """The rows of ``table``, each made when asked for (a spooled run is read as it goes)."""
    tail = _tail(stamp, notice)
    quote_date = stamp.quote_date.isoformat() if stamp and stamp.quote_date else ""
    yield list(COLUMNS)
    for item in in_input_order(run.sites, run.out_of_scope):
        if isinstance(item, SiteAssessment):
            row = _site_row(item, quote_date)
            if item.pricing is not None:
                row += [*_priced(item.pricing), "", ""]
        else:
            blank = [""] * (4 + _PRICING)
            row = [*_who(item.site), "out_of_scope", *blank, item.reason_code, item.reason]
        yield row + tail
    yield _total_row(run) + tail


def _total_row(run: AssessmentRun) -> list[str]:
    """The last row, summed in one pass over the sites (a spooled run is read once more)."""
    count = quoted = units = 0
    n_total = p_total = Decimal("0")
    money = dict.fromkeys(("base_amount", "amount_excluding_vat", "vat", "amount_including_vat"))
    sums = {name: Decimal("0.00") for name in money}
    for site in run.sites:
        count += 1
        n_total += Decimal(two_places(site.n_total))
        p_total += Decimal(two_places(site.p_total))
        if site.pricing is not None:
            quoted += 1
            units += site.pricing.units
            for name in sums:
                sums[name] += getattr(site.pricing, name)
    summary = f"{quoted} quoted, {count - quoted} refused, {len(run.out_of_scope)} out of scope"
    last = ["", "TOTAL", summary, "", "", "", ""]
    last += [two_places(n_total), two_places(p_total)]
    last += [str(units)] + [""] * 6
    last += [two_places(sums["base_amount"]), two_places(sums["amount_excluding_vat"]), ""]
    last += [
        two_places(sums["vat"]),
        two_places(sums["amount_including_vat"]),
        "",
        "",
        "quoted levies only",
    ]
    return last


def row_count(run: AssessmentRun) -> int:
    """How many rows ``table_rows`` gives, without making them (for progress)."""
    return 1 + len(run.sites) + len(run.out_of_scope) + 1


def lines(rows: Iterable[list[str]], tick: Callable[[], None] | None = None) -> Iterator[str]:
    """The file's text a row at a time: the BOM first, CRLF line ends."""
    yield BOM
    yield from csv_lines(rows, "\r\n", tick)


def render(run: AssessmentRun, notice: str | None = None, stamp: OutputStamp | None = None) -> str:
    """The table as text (BOM first, the header in row 1 always)."""
    return "".join(lines(table(run, notice, stamp)))
