"""A readable results table for the terminal."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE
from nrf.adapters.outputs.spooled_run import in_order
from nrf.domain.results import AssessmentRun


def _money(value: Decimal) -> str:
    return f"£{value:,.2f}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render_table(run: AssessmentRun) -> str:
    return "\n".join(table_lines(run))


def table_lines(run: AssessmentRun) -> Iterator[str]:
    """The table's lines, each made when asked for (a spooled run is read as it goes)."""
    lines: list[str] = []
    if run.provenance.synthetic_data:
        lines += ["!" * 78, _cut(SYNTHETIC_NOTICE, 400), "!" * 78, ""]
    header = (
        f"{'RLB':>4} {'id':<12} {'name':<22} {'dwell':>5} {'ha':>7} {'NN catchment':<18} "
        f"{'WwTW':>5} {'N kg/yr':>9} {'P kg/yr':>8} {'levy':>14}"
    )
    lines += [header, "-" * len(header)]
    yield from lines
    lines = []
    for s in in_order(run.sites):
        catchments = "; ".join(s.nn_catchments) if s.nn_catchments else "(none)"
        yield (
            f"{s.site.rlb_id:>4} {_cut(s.site.id, 12):<12} {_cut(s.site.name, 22):<22} "
            f"{s.site.dwellings:>5} {s.dev_area_ha:>7.2f} {_cut(catchments, 18):<18} "
            f"{s.majority_wwtw_id:>5} {s.n_total:>9.2f} {s.p_total:>8.2f} "
            f"{_money(s.levy.levy_gbp):>14}"
        )
    n_total = sum(round(s.n_total * 100) for s in run.sites) / 100
    p_total = sum(round(s.p_total * 100) for s in run.sites) / 100
    lines += [
        "-" * len(header),
        f"{len(run.sites)} sites assessed; N {n_total:,.2f} kg/yr, P {p_total:,.2f} kg/yr; "
        f"levy {_money(run.levy_total.levy_gbp)} (monitoring "
        f"{_money(run.levy_total.monitoring_gbp)}, maintenance "
        f"{_money(run.levy_total.maintenance_gbp)}, admin {_money(run.levy_total.admin_gbp)})",
    ]
    if run.out_of_scope:
        lines += ["", f"{len(run.out_of_scope)} sites out of scope (not charged):"]
        yield from lines
        lines = []
        for o in in_order(run.out_of_scope):
            yield f"{o.site.rlb_id:>4} {_cut(o.site.id, 12):<12} {o.reason_code}: {o.reason}"
    p = run.provenance
    lines += [
        "",
        f"rules {p.rule_set}; reference data {p.bundle_name} {p.bundle_version} "
        f"(sha256 {p.bundle_sha256[:12]}…); nrf {p.software_version}",
    ]
    yield from lines
