"""A readable results table for the terminal: figures, the levy or why it was refused."""

from __future__ import annotations

from collections.abc import Iterator

from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE
from nrf.adapters.outputs.spooled_run import in_order
from nrf.domain.counts import counted
from nrf.domain.levy_text import gbp, levy_sum, short_levy
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.results import AssessmentRun


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def table_lines(run: AssessmentRun, stamp: OutputStamp | None = None) -> Iterator[str]:
    """The table's lines, each made when asked for (a spooled run is read as it goes)."""
    if run.provenance.synthetic_data:
        yield from ["!" * 78, _cut(SYNTHETIC_NOTICE, 400), "!" * 78, ""]
    if stamp is not None:
        yield from [f"made {stamp.made_at_text} from {stamp.input_name}", ""]
    header = (
        f"{'RLB':>4} {'id':<12} {'name':<22} {'dwell':>5} {'ha':>7} {'NN catchment':<18} "
        f"{'WwTW':>5} {'N kg/yr':>9} {'P kg/yr':>8} {'levy excl. VAT':>30}"
    )
    yield from [header, "-" * len(header)]
    n_cents = p_cents = refused = 0
    for s in in_order(run.sites):
        catchments = "; ".join(s.nn_catchments) if s.nn_catchments else "(none)"
        yield (
            f"{s.site.rlb_id:>4} {_cut(s.site.id, 12):<12} {_cut(s.site.name, 22):<22} "
            f"{s.site.dwellings:>5} {s.dev_area_ha:>7.2f} {_cut(catchments, 18):<18} "
            f"{s.majority_wwtw_id:>5} {s.n_total:>9.2f} {s.p_total:>8.2f} "
            f"{_cut(short_levy(s), 30):>30}"
        )
        n_cents += round(s.n_total * 100)
        p_cents += round(s.p_total * 100)
        refused += s.pricing is None and s.levy_refusal is not None
    n_total = n_cents / 100
    p_total = p_cents / 100
    levy = levy_sum(run.sites)
    yield from [
        "-" * len(header),
        f"{counted(len(run.sites), 'site')} assessed; "
        f"N {n_total:,.2f} kg/yr, P {p_total:,.2f} kg/yr",
        f"levy {gbp(levy.excluding_vat)} excluding VAT, VAT {gbp(levy.vat)}, "
        f"{gbp(levy.including_vat)} including VAT ({levy.quoted} quoted, {levy.refused} refused)",
    ]
    if refused:
        yield from [
            "",
            f"{counted(refused, 'levy', 'levies')} refused (the figures above still stand):",
        ]
        for s in in_order(run.sites):
            if s.pricing is None and s.levy_refusal is not None:
                yield (
                    f"{s.site.rlb_id:>4} {_cut(s.site.id, 12):<12} {s.levy_refusal.code}: "
                    f"{s.levy_refusal.message}"
                )
    if run.out_of_scope:
        yield from ["", f"{counted(len(run.out_of_scope), 'site')} out of scope (not charged):"]
        for o in in_order(run.out_of_scope):
            yield f"{o.site.rlb_id:>4} {_cut(o.site.id, 12):<12} {o.reason_code}: {o.reason}"
    p = run.provenance
    yield from [
        "",
        f"rules {p.rule_set}; reference data {p.bundle_name} {p.bundle_version} "
        f"(sha256 {p.bundle_sha256[:12]}…); nrf {p.software_version}",
    ]
