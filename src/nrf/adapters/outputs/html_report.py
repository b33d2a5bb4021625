"""The report a planner signs off: one self-contained HTML page (map, figures, provenance).

Self-contained on purpose: no scripts, fonts, tiles or stylesheets from elsewhere, so it opens
offline, archives as one file and prints as it looks. Over 200 lines: the page is one template
read top to bottom; splitting it would scatter the markup without making any part reusable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from html import escape
from pathlib import Path

from nrf.adapters.outputs import svg_map
from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE, job_files
from nrf.domain.model import Boundary, Development, SiteReferenceData
from nrf.domain.ports import BoundaryDataRepository
from nrf.domain.results import AssessmentRun, LevyQuote, SiteAssessment
from nrf.domain.rules import RULE_SETS

ReferenceFor = Callable[[Boundary], SiteReferenceData]
# A map per site costs a bundle read and an overlay; past this many sites the overview map
# (every site) stands in, which keeps a 245-site report well under a second to draw.
MAX_SITE_MAPS = 25

_STYLE = """
body{font-family:Arial,Helvetica,sans-serif;color:#0b0c0c;margin:24px;max-width:980px}
h1{font-size:28px;margin:0 0 8px}h2{font-size:22px;margin:28px 0 8px;border-top:2px solid #0b0c0c;
padding-top:12px}h3{font-size:17px;margin:16px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:14px}
th,td{border:1px solid #b1b4b6;padding:4px 8px;text-align:left}td.n{text-align:right;
font-variant-numeric:tabular-nums}th{background:#f3f2f1}
.synthetic{background:#d4351c;color:#fff;font-weight:bold;font-size:20px;padding:16px;
border:6px solid #0b0c0c;margin:0 0 16px}
.legend span{display:inline-block;width:14px;height:14px;border:1px solid #505a5f;
vertical-align:middle;margin:0 4px 0 12px}.map{max-width:100%;height:auto}
.out{color:#505a5f}code{font-size:12px;word-break:break-all}
@media print{body{margin:0}h2{break-before:auto}section.site{break-inside:avoid}
.synthetic{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
"""


def _kg(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def _gbp(value: Decimal) -> str:
    return f"£{value:,.2f}"


def _cell(text: str, *, numeric: bool = True, key: str | None = None) -> str:
    attr = f' data-figure="{escape(key)}"' if key else ""
    return f"<td{' class=n' if numeric else ''}{attr}>{escape(text)}</td>"


def _row(*cells: str) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def _head(*names: str) -> str:
    return "<tr>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"


def _levy_cells(quote: LevyQuote | None, key: str | None = None) -> list[str]:
    if quote is None:
        return [_cell("no rate in the bundle", numeric=False)] + [_cell("–")] * 4
    figures = (quote.levy_gbp, quote.monitoring_gbp, quote.maintenance_gbp, quote.admin_gbp,
               quote.mitigation_gbp)  # fmt: skip
    names = ("levy", "monitoring", "maintenance", "admin", "mitigation")
    pairs = zip(figures, names, strict=True)
    return [_cell(_gbp(v), key=f"{key}-{n}" if key else None) for v, n in pairs]


def _totals(run: AssessmentRun) -> str:
    # Whole pennies summed, as the emails do: each site's totals are already 2 dp.
    n = sum(round(s.n_total * 100) for s in run.sites) / 100
    p = sum(round(s.p_total * 100) for s in run.sites) / 100
    return (
        "<table id=totals>" + _head("", "value")
        + _row("<th>sites assessed</th>", _cell(str(len(run.sites)), key="sites"))
        + _row("<th>sites out of scope</th>", _cell(str(len(run.out_of_scope)), key="out-of-scope"))
        + _row("<th>nitrogen, kg/yr</th>", _cell(f"{n:,.2f}", key="total-n"))
        + _row("<th>phosphorus, kg/yr</th>", _cell(f"{p:,.2f}", key="total-p"))
        + "</table><table>" + _head("levy", "monitoring", "maintenance", "admin", "mitigation")
        + _row(*_levy_cells(run.levy_total, key="total")) + "</table>"
    )  # fmt: skip


def _figures(site: SiteAssessment) -> str:
    buffer_n = site.n_total - ((site.n_lu_post_suds or 0.0) + site.n_wwtw_perm)
    buffer_p = site.p_total - ((site.p_lu_post_suds or 0.0) + site.p_wwtw_perm)
    lines = (
        ("land use uplift", site.n_lu_uplift, site.p_lu_uplift),
        ("land use after SuDS", site.n_lu_post_suds, site.p_lu_post_suds),
        ("wastewater (permanent)", site.n_wwtw_perm, site.p_wwtw_perm),
        ("buffer", buffer_n, buffer_p),
        ("total", site.n_total, site.p_total),
    )
    rows = "".join(_row(f"<th>{escape(name)}</th>", _cell(_kg(n)), _cell(_kg(p)))
                   for name, n, p in lines)  # fmt: skip
    return "<table>" + _head("kg/yr", "nitrogen", "phosphorus") + rows + "</table>"


def _catchments(site: SiteAssessment) -> str:
    if not site.catchments:
        return "<p>The site lies in no nutrient-neutrality catchment.</p>"
    rows = "".join(_row(
        _cell(c.n2k_site_name, numeric=False), _cell(c.edp_id, numeric=False),
        _cell(_kg(c.area_ha)),
        _cell(_kg(c.n_lu_post_suds)), _cell(_kg(c.p_lu_post_suds)), _cell(_kg(c.n_wwtw_perm)),
        _cell(_kg(c.p_wwtw_perm)), _cell(_kg(c.n_total)), _cell(_kg(c.p_total)),
    ) for c in site.catchments)  # fmt: skip
    head = _head("NN catchment", "EDP", "area ha", "land use N", "land use P", "wastewater N",
                 "wastewater P", "total N", "total P")  # fmt: skip
    return "<h3>Per catchment (kg/yr)</h3><table>" + head + rows + "</table>"


def _edps(site: SiteAssessment) -> str:
    if not site.levy_by_edp:
        return ""
    rows = "".join(_row(
        _cell(f"{e.edp_id} {e.edp_name or ''}".strip(), numeric=False), _cell(_kg(e.n_total)),
        _cell(_kg(e.p_total)), *_levy_cells(e.quote),
    ) for e in site.levy_by_edp)  # fmt: skip
    head = _head("EDP", "N kg/yr", "P kg/yr", "levy", "monitoring", "maintenance", "admin",
                 "mitigation")  # fmt: skip
    return "<h3>Per EDP</h3><table>" + head + rows + "</table>"


def _site(site: SiteAssessment, dev: Development, map_svg: str) -> str:
    s = site.site
    facts = (
        f"{s.dwellings} dwellings ({escape(s.dwelling_category)}), {site.dev_area_ha:,.2f} ha; "
        f"works {site.majority_wwtw_id} {escape(site.wwtw_name or '')}; LPA "
        f"{escape(site.majority_lpa)}; subcatchment {escape(site.dev_subcatchment or '–')}"
    )
    return (
        f'<section class="site" id="site-{s.rlb_id}" data-rlb-id="{s.rlb_id}">'
        f"<h2>Site {s.rlb_id}: {escape(s.name or s.id)} <small>({escape(s.id)})</small></h2>"
        f"<p>{facts}</p>{map_svg}{_figures(site)}{_catchments(site)}{_edps(site)}</section>"
    )


def _legend() -> str:
    items = [("#d4351c", "site"), ("#00703c", "NN catchment"), ("#1d70b8", "works catchment")]
    items += [(fill, f"N uplift {low:g} to {high:g} kg/ha/yr")
              for low, high, fill in svg_map.UPLIFT_CLASSES]  # fmt: skip
    spans = "".join(f'<span style="background:{c}"></span>{escape(t)}' for c, t in items)
    return f'<p class="legend">{spans.replace("-inf", "below").replace(" to inf", " and over")}</p>'


def render_report(
    run: AssessmentRun, developments: Sequence[Development], reference_for: ReferenceFor
) -> str:
    """The whole page for a run; maps come from the bundle the run was assessed with."""
    prov = run.provenance
    by_id: Mapping[int, Development] = {d.rlb_id: d for d in developments}
    rules = RULE_SETS.get(prov.rule_set)
    described = rules.description if rules else ""
    banner = (f'<div class="synthetic" id="synthetic-banner" role="alert">'
              f"{escape(SYNTHETIC_NOTICE)}</div>") if prov.synthetic_data else ""  # fmt: skip
    overview = ""
    if len(developments) > 1:
        overview = "<h2>Where the sites are</h2>" + svg_map.overview_map(
            (d.boundary for d in developments), f"{len(developments)} sites"
        )
    sections = []
    for number, site in enumerate(run.sites):
        dev = by_id[site.site.rlb_id]
        drawn = ""
        if number < MAX_SITE_MAPS:
            drawn = svg_map.site_map(
                dev.boundary, reference_for(dev.boundary), nn_names=site.nn_catchments,
                wwtw_id=site.majority_wwtw_id, label=f"Map of site {site.site.rlb_id}",
            )  # fmt: skip
        sections.append(_site(site, dev, drawn))
    outs = "".join(
        _row(_cell(str(o.site.rlb_id)), _cell(o.site.id, numeric=False),
             _cell(o.site.name, numeric=False), _cell(o.reason, numeric=False))
        for o in run.out_of_scope)  # fmt: skip
    out_table = ("<h2>Out of scope</h2><table class=out>" + _head("site", "id", "name", "why")
                 + outs + "</table>") if outs else ""  # fmt: skip
    unmapped = len(run.sites) - MAX_SITE_MAPS
    note = (f"<p>Maps are drawn for the first {MAX_SITE_MAPS} sites; the other {unmapped} are "
            "on the overview map.</p>") if unmapped > 0 else ""  # fmt: skip
    provenance = (
        "<table id=provenance>"
        + _row("<th>rule set</th>", _cell(f"{prov.rule_set}: {described}", numeric=False))
        + _row("<th>bundle</th>", _cell(prov.bundle_name, numeric=False, key="bundle-name"))
        + _row("<th>bundle version</th>", _cell(prov.bundle_version, numeric=False))
        + _row("<th>bundle SHA-256</th>",
               f'<td data-figure="bundle-sha256"><code>{prov.bundle_sha256}</code></td>')
        + _row("<th>software</th>", _cell(f"nrf {prov.software_version}", numeric=False))
        + "</table>"
    )  # fmt: skip
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Nutrient levy report</title><style>{_STYLE}</style></head><body>{banner}"
        "<h1>Nutrient levy report</h1>" + _totals(run) + provenance + overview + _legend() + note
        + "".join(sections) + out_table + banner + "</body></html>\n"
    )  # fmt: skip


def report_renderer(repository: BoundaryDataRepository) -> Callable[..., dict[str, bytes]]:
    """The worker's renderer with ``result.html`` beside the JSON, GeoJSON and CSV."""

    def render(run: AssessmentRun, developments: Sequence[Development]) -> dict[str, bytes]:
        files = job_files(run, developments)
        html = render_report(run, developments, repository.reference_for)
        return {**files, "result.html": html.encode()}

    return render


def report_files(
    path: Path, run: AssessmentRun, developments: Sequence[Development],
    repository: BoundaryDataRepository,
) -> dict[Path, str]:  # fmt: skip
    """`nrf assess --output report.html`: the one page, for ``write_all``."""
    return {path: render_report(run, developments, repository.reference_for)}
