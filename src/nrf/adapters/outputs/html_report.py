"""The report a planner signs off: one self-contained HTML page (map, figures, provenance).

Self-contained on purpose: no scripts, fonts, tiles or stylesheets from elsewhere, so it opens
offline, archives as one file and prints as it looks.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from nrf.adapters.outputs import html_tables as tables
from nrf.adapters.outputs import svg_map
from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE, job_files
from nrf.domain.counts import counted
from nrf.domain.model import Boundary, Development, SiteReferenceData
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.ports import BoundaryDataRepository, Clock
from nrf.domain.results import AssessmentRun, OutOfScopeSite, SiteAssessment

ReferenceFor = Callable[[Boundary], SiteReferenceData]
log = logging.getLogger("nrf.report")
# A map per site costs a bundle read and an overlay; past this many sites the overview map
# (every site) stands in, which keeps a 245-site report well under a second to draw.
MAX_SITE_MAPS = 25

_STYLE = """
body{font-family:Arial,Helvetica,sans-serif;color:#0b0c0c;margin:24px;max-width:980px}
h1{font-size:28px;margin:0 0 8px}h2{font-size:22px;margin:28px 0 8px;border-top:2px solid #0b0c0c;
padding-top:12px}h3{font-size:17px;margin:16px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:14px}
caption{text-align:left;font-weight:bold;padding:2px 0}
th,td{border:1px solid #b1b4b6;padding:4px 8px;text-align:left}td.n{text-align:right;
font-variant-numeric:tabular-nums}th{background:#f3f2f1}
.synthetic{background:#d4351c;color:#fff;font-weight:bold;font-size:20px;padding:16px;
border:6px solid #0b0c0c;margin:0 0 16px}
.stamp{font-size:16px}.refused{border-left:6px solid #d4351c;padding:4px 12px;margin:8px 0}
.legend{font-size:14px}.legend span{display:inline-block;width:14px;height:14px;
border:1px solid #505a5f;vertical-align:middle;margin:0 4px 0 12px}
.map{max-width:100%;height:auto}figure{margin:8px 0}
.out{color:#505a5f}code{font-size:12px;word-break:break-all}
#summary td{white-space:nowrap}.print-key{display:none}
a{color:#1d70b8}a:focus{outline:3px solid #ffdd00;background:#ffdd00;color:#0b0c0c}
@page{size:A4;margin:12mm}
@media print{body{margin:0;max-width:none;font-size:11px}table{font-size:11px;margin:2px 0 3px}
th,td{padding:0 4px}h1{font-size:18px}h2{font-size:13px;margin:6px 0 2px;padding-top:3px;
border-top-width:1px;break-after:avoid}h3{font-size:11px;margin:3px 0 1px;break-after:avoid}
p,ol{margin:2px 0}caption{padding:0;break-after:avoid}.stamp,.legend{font-size:10px}
.synthetic{font-size:12px;padding:5px;border-width:3px;margin:0 0 6px}
section.site{break-inside:avoid;overflow:hidden}section.site table{break-inside:avoid}
thead{display:table-header-group}tr,figure{break-inside:avoid}
.site-map{float:right;margin:0 0 2px 6px}.site-map .map{width:55mm;height:55mm}
.site-map figcaption{display:none}.print-key{display:block}code{font-size:10px}
.overview .map{width:170mm;height:170mm}figure{margin:2px 0}.refused{padding:1px 6px;margin:2px 0}
.synthetic,th,.legend span{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.downloads{display:none}}
"""


def _warnings(run: AssessmentRun) -> str:
    """The run's warnings under the stamp, before any figure, each with its code."""
    if not run.warnings:
        return ""
    items = "".join(
        f"<li><code>{escape(w.code)}</code>: {escape(w.message)}</li>" for w in run.warnings
    )
    return (
        '<section class="warnings" role="note" aria-labelledby="warnings">'
        f'<h2 id="warnings">Warnings</h2><ul>{items}</ul></section>'
    )


def _site(site: SiteAssessment, dev: Development, map_svg: str) -> str:
    """One site's section: heading, facts, its map beside the levy and the figures."""
    s = site.site
    plural = "" if s.dwellings == 1 else "s"
    facts = (
        f"{s.dwellings} dwelling{plural} ({escape(s.dwelling_category)}), "
        f"{site.dev_area_ha:,.2f} ha; "
        f"works {site.majority_wwtw_id} {escape(site.wwtw_name or '')}; LPA "
        f"{escape(site.majority_lpa)}; subcatchment {escape(site.dev_subcatchment or '–')}"
    )
    mapped = " mapped" if map_svg else ""
    return (
        f'<section class="site{mapped}" id="site-{s.rlb_id}" data-rlb-id="{s.rlb_id}">'
        f"<h2>Site {s.rlb_id}: {escape(s.name or s.id)} <small>({escape(s.id)})</small></h2>"
        f"{map_svg}<p>{facts}</p>{tables.levy(site)}{tables.figures(site)}"
        f"{tables.catchments(site)}</section>"
    )


def _figure(map_svg: str, legend: str, kind: str = "site-map") -> str:
    if not map_svg:
        return ""
    return f'<figure class="{kind}">{map_svg}<figcaption>{legend}</figcaption></figure>'


def _legend() -> str:
    """The key beside each site map: every line and fill the map can show, in words."""
    items = [("#d4351c", "site"), ("#00703c", "NN catchment"), ("#1d70b8", "works catchment")]
    items += [(svg_map.EXCLUDED_FILL, "excluded area (SSSI and its buffer): no levy")]
    items += [(fill, _uplift_label(low, high)) for low, high, fill in svg_map.UPLIFT_CLASSES]
    spans = "".join(f'<span style="background:{c}"></span>{escape(t)}' for c, t in items)
    return f'<p class="legend">Key: {spans}</p>'


def _overview_legend() -> str:
    return (
        '<p class="legend">Key: <span style="background:#d4351c"></span>a site, labelled '
        "with its site number (the RLB id of the summary table)</p>"
    )


def _uplift_label(low: float, high: float) -> str:
    if math.isinf(low):
        return f"N uplift below {high:g} kg/ha/yr"
    if math.isinf(high):
        return f"N uplift {low:g} kg/ha/yr and over"
    return f"N uplift {low:g} to {high:g} kg/ha/yr"


def _banner(run: AssessmentRun) -> str:
    if not run.provenance.synthetic_data:
        return ""
    notice = escape(SYNTHETIC_NOTICE)
    return f'<div class="synthetic" id="synthetic-banner" role="note">{notice}</div>'


def _stamp(stamp: OutputStamp | None, run: AssessmentRun) -> str:
    """Under the title: when, from what and for which quote, so a filed copy is traceable."""
    dates = sorted({s.pricing.quote_date.isoformat() for s in run.sites if s.pricing})
    parts = []
    if stamp is not None:
        parts.append(f'Made <span data-figure="made-at">{escape(stamp.made_at_text)}</span>')
        parts.append(f'from <span data-figure="input">{escape(stamp.input_name)}</span>')
        reference = stamp.reference or "none given"
        parts.append(f'quote reference <span data-figure="reference">{escape(reference)}</span>')
    if dates:
        parts.append(f"quote date {escape(', '.join(dates))}")
    return f'<p class="stamp">{"; ".join(parts)}.</p>' if parts else ""


def _out_of_scope(site: OutOfScopeSite, dev: Development, map_svg: str) -> str:
    s = site.site
    mapped = " mapped" if map_svg else ""
    return (
        f'<section class="site out{mapped}" id="site-{s.rlb_id}" data-rlb-id="{s.rlb_id}">'
        f"<h2>Site {s.rlb_id}: {escape(s.name or s.id)} <small>({escape(s.id)})</small>: "
        f"out of scope</h2><p><code>{escape(site.reason_code)}</code>: {escape(site.reason)}"
        f"</p>{map_svg}</section>"
    )


# Long: the page's sections in print order; each is a call, the length is the HTML frame.
def render_report(
    run: AssessmentRun,
    developments: Sequence[Development],
    reference_for: ReferenceFor,
    stamp: OutputStamp | None = None,
    *,
    downloads: str = "",
) -> str:
    """The whole page for a run; maps come from the bundle the run was assessed with.

    ``downloads`` is HTML placed under the stamp (the form's links to the same quote in its
    other formats); it is not printed.
    """
    by_id: Mapping[int, Development] = {d.rlb_id: d for d in developments}
    overview = ""
    if len(developments) > 1:
        drawn_all = svg_map.overview_map(
            ((d.rlb_id, d.boundary) for d in developments), counted(len(developments), "site")
        )
        overview = "<h2>Where the sites are</h2>" + _figure(
            drawn_all, _overview_legend(), "overview"
        )
    maps_left = MAX_SITE_MAPS

    def drawn(
        dev: Development,
        nn_names: Sequence[str] | None,
        wwtw_id: int | None,
        edp_names: Sequence[str] = (),
    ) -> str:
        nonlocal maps_left
        if maps_left <= 0:
            return ""
        maps_left -= 1
        reference = reference_for(dev.boundary)
        if nn_names is None:  # out of scope: show whichever catchments are near
            nn_names = [c.n2k_site_name for c in reference.nn_catchments]
        label = f"Map of site {dev.rlb_id}"
        svg = svg_map.site_map(
            dev.boundary,
            reference,
            nn_names=nn_names,
            wwtw_id=wwtw_id,
            label=label,
            edp_names=edp_names,
        )
        return _figure(svg, _legend())

    sections = []
    for site in run.sites:
        dev = by_id[site.site.rlb_id]
        edp_names = [f"{e.edp_id} {e.edp_name}" for e in site.edps]
        map_svg = drawn(dev, site.nn_catchments, site.majority_wwtw_id, edp_names)
        sections.append(_site(site, dev, map_svg))
    for out in run.out_of_scope:
        dev = by_id[out.site.rlb_id]
        sections.append(_out_of_scope(out, dev, drawn(dev, None, None)))
    unmapped = len(run.sites) + len(run.out_of_scope) - MAX_SITE_MAPS
    note = f"<p>{escape(tables.CATCHMENT_NOTE)}</p>" if run.sites else ""
    if unmapped > 0:
        note += f"<p>Maps are drawn for the first {MAX_SITE_MAPS} sites; the other {unmapped} "
        note += "are on the overview map.</p>"
    if MAX_SITE_MAPS > 0 and sections:
        # Printed once, above the sites, instead of under each small map.
        note += _legend().replace('class="legend"', 'class="legend print-key"', 1)
    banner = _banner(run)
    reference = stamp.reference if stamp is not None and stamp.reference else None
    title = "Nutrient levy report" + (f" {reference}" if reference else "")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body><main>{banner}"
        f"<h1>{escape(title)}</h1>"
        + _stamp(stamp, run)
        + _warnings(run)
        + downloads
        + "<h2>Summary</h2>"
        + tables.totals(run)
        + tables.summary(run)
        + tables.provenance_table(run.provenance)
        + tables.schedule(run)
        + overview
        + note
        + "".join(sections)
        + banner
        + "</main></body></html>\n"
    )


def job_stamp(clock: Clock | None, developments: Sequence[Development]) -> OutputStamp | None:
    """A queued job's stamp: now, and the job's one development, whose id is the quote
    reference the message gave (the input is that message, not a file)."""
    if clock is None or not developments:
        return None
    made = datetime.fromtimestamp(clock.now(), UTC)
    reference = developments[0].id
    return OutputStamp(
        made_at=made,
        input_name=f"quote message {reference}",
        reference=reference,
        quote_date=made.date(),
    )


def report_renderer(
    repository: BoundaryDataRepository, clock: Clock | None = None
) -> Callable[..., dict[str, bytes]]:
    """The worker's renderer with ``result.html`` beside the JSON, GeoJSON and CSVs.

    The report is a convenience beside the result documents: if it cannot be drawn the job
    still stores its results (and says so in the log) rather than failing or retrying.
    """

    def render(run: AssessmentRun, developments: Sequence[Development]) -> dict[str, bytes]:
        stamp = job_stamp(clock, developments)
        files = job_files(run, developments, stamp)
        try:
            html = render_report(run, developments, repository.reference_for, stamp)
        except Exception as exc:
            log.warning("report_not_rendered", extra={"error": f"{type(exc).__name__}: {exc}"})
            return files
        return {**files, "result.html": html.encode()}

    return render


def report_files(
    path: Path,
    run: AssessmentRun,
    developments: Sequence[Development],
    repository: BoundaryDataRepository,
    stamp: OutputStamp | None = None,
) -> dict[Path, str]:
    """`nrf assess --output report.html`: the one page, for ``write_all``."""
    return {path: render_report(run, developments, repository.reference_for, stamp)}
