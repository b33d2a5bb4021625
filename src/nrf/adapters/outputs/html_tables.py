"""The figures of a report as HTML tables: per site, per catchment, per EDP, and the totals.

Cells a test or a reader may need to find carry ``data-figure`` names (``total-n``...), so the
browser tests read the page the way a person does, by what each cell says it is.
"""

from __future__ import annotations

from decimal import Decimal
from html import escape

from nrf.domain.results import AssessmentRun, LevyQuote, Provenance, SiteAssessment
from nrf.domain.rules import RULE_SETS


def kg(value: float | None) -> str:
    """Two decimals; a difference that rounds to nothing shows as 0.00, never -0.00."""
    return "–" if value is None else f"{round(value, 2) or 0.0:,.2f}"


def gbp(value: Decimal) -> str:
    return f"£{value:,.2f}"


def cell(text: str, *, numeric: bool = True, key: str | None = None) -> str:
    attr = f' data-figure="{escape(key)}"' if key else ""
    return f"<td{' class=n' if numeric else ''}{attr}>{escape(text)}</td>"


def row(*cells: str) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def head(*names: str) -> str:
    return "<tr>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"


def levy_cells(quote: LevyQuote | None, key: str | None = None) -> list[str]:
    if quote is None:
        return [cell("no rate in the bundle", numeric=False)] + [cell("–")] * 4
    figures = (
        quote.levy_gbp,
        quote.monitoring_gbp,
        quote.maintenance_gbp,
        quote.admin_gbp,
        quote.mitigation_gbp,
    )
    names = ("levy", "monitoring", "maintenance", "admin", "mitigation")
    pairs = zip(figures, names, strict=True)
    return [cell(gbp(v), key=f"{key}-{n}" if key else None) for v, n in pairs]


def totals(run: AssessmentRun) -> str:
    # Whole pennies summed, as the emails do: each site's totals are already 2 dp.
    n = sum(round(s.n_total * 100) for s in run.sites) / 100
    p = sum(round(s.p_total * 100) for s in run.sites) / 100
    return (
        "<table id=totals>"
        + head("", "value")
        + row("<th>sites assessed</th>", cell(str(len(run.sites)), key="sites"))
        + row("<th>sites out of scope</th>", cell(str(len(run.out_of_scope)), key="out-of-scope"))
        + row("<th>nitrogen, kg/yr</th>", cell(f"{n:,.2f}", key="total-n"))
        + row("<th>phosphorus, kg/yr</th>", cell(f"{p:,.2f}", key="total-p"))
        + "</table><table>"
        + head("levy", "monitoring", "maintenance", "admin", "mitigation")
        + row(*levy_cells(run.levy_total, key="total"))
        + "</table>"
    )


def figures(site: SiteAssessment) -> str:
    buffer_n = site.n_total - ((site.n_lu_post_suds or 0.0) + site.n_wwtw_perm)
    buffer_p = site.p_total - ((site.p_lu_post_suds or 0.0) + site.p_wwtw_perm)
    lines = (
        ("land use uplift", site.n_lu_uplift, site.p_lu_uplift),
        ("land use after SuDS", site.n_lu_post_suds, site.p_lu_post_suds),
        ("wastewater (permanent)", site.n_wwtw_perm, site.p_wwtw_perm),
        ("buffer", buffer_n, buffer_p),
        ("total", site.n_total, site.p_total),
    )
    rows = "".join(
        row(f"<th>{escape(name)}</th>", cell(kg(n)), cell(kg(p))) for name, n, p in lines
    )
    return "<table>" + head("kg/yr", "nitrogen", "phosphorus") + rows + "</table>"


def catchments(site: SiteAssessment) -> str:
    if not site.catchments:
        return "<p>The site lies in no nutrient-neutrality catchment.</p>"
    rows = "".join(
        row(
            cell(c.n2k_site_name, numeric=False),
            cell(c.edp_id, numeric=False),
            cell(kg(c.area_ha)),
            cell(kg(c.n_lu_post_suds)),
            cell(kg(c.p_lu_post_suds)),
            cell(kg(c.n_wwtw_perm)),
            cell(kg(c.p_wwtw_perm)),
            # The buffer is what the total adds to land use plus wastewater.
            cell(kg(c.n_total - (c.n_lu_post_suds + c.n_wwtw_perm))),
            cell(kg(c.p_total - (c.p_lu_post_suds + c.p_wwtw_perm))),
            cell(kg(c.n_total)),
            cell(kg(c.p_total)),
        )
        for c in site.catchments
    )
    header = head(
        "NN catchment",
        "EDP",
        "area ha",
        "land use N",
        "land use P",
        "wastewater N",
        "wastewater P",
        "buffer N",
        "buffer P",
        "total N",
        "total P",
    )
    note = "<p>Land use is after SuDS; the SuDS reduction is in the site's figures above.</p>"
    return "<h3>Per catchment (kg/yr)</h3><table>" + header + rows + "</table>" + note


def edps(site: SiteAssessment) -> str:
    if not site.levy_by_edp:
        return ""
    rows = "".join(
        row(
            cell(f"{e.edp_id} {e.edp_name or ''}".strip(), numeric=False),
            cell(kg(e.n_total)),
            cell(kg(e.p_total)),
            *levy_cells(e.quote),
        )
        for e in site.levy_by_edp
    )
    header = head(
        "EDP", "N kg/yr", "P kg/yr", "levy", "monitoring", "maintenance", "admin", "mitigation"
    )
    return "<h3>Per EDP</h3><table>" + header + rows + "</table>"


def provenance(prov: Provenance) -> str:
    """Rule set, bundle name, version and SHA-256: what a signed-off figure depends on."""
    rules = RULE_SETS.get(prov.rule_set)
    described = f"{prov.rule_set}: {rules.description}" if rules else prov.rule_set
    sha = f'<td data-figure="bundle-sha256"><code>{escape(prov.bundle_sha256)}</code></td>'
    return (
        "<table id=provenance>"
        + row("<th>rule set</th>", cell(described, numeric=False, key="rule-set"))
        + row("<th>bundle</th>", cell(prov.bundle_name, numeric=False, key="bundle-name"))
        + row("<th>bundle version</th>", cell(prov.bundle_version, numeric=False))
        + row("<th>bundle SHA-256</th>", sha)
        + row("<th>software</th>", cell(f"nrf {prov.software_version}", numeric=False))
        + "</table>"
    )
