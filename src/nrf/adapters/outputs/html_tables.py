"""The figures of a report as HTML tables: per site, per catchment, per EDP, and the totals.

Cells a test or a reader may need to find carry ``data-figure`` names (``total-n``...), so the
browser tests read the page the way a person does, by what each cell says it is.
"""

# Long: every table of the report in print order, over the same few cell helpers.

from __future__ import annotations

from html import escape

from nrf.domain.levy_text import (
    LevySum,
    gbp,
    gbp_scheduled,
    levy_lines,
    levy_sum,
    percent,
    pricing_lines,
)
from nrf.domain.results import AssessmentRun, Provenance, SiteAssessment
from nrf.domain.rules import RULE_SETS


def kg(value: float | None) -> str:
    """Two decimals; a difference that rounds to nothing shows as 0.00, never -0.00."""
    return "–" if value is None else f"{round(value, 2) or 0.0:,.2f}"


def cell(text: str, *, numeric: bool = True, key: str | None = None) -> str:
    attr = f' data-figure="{escape(key)}"' if key else ""
    return f"<td{' class=n' if numeric else ''}{attr}>{escape(text)}</td>"


def row(*cells: str) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def head(*names: str) -> str:
    return "<tr>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"


def totals(run: AssessmentRun) -> str:
    """The batch in figures; the levy sums only the quoted sites and says how many were refused."""
    # Whole pennies summed, as the emails do: each site's totals are already 2 dp.
    n = sum(round(s.n_total * 100) for s in run.sites) / 100
    p = sum(round(s.p_total * 100) for s in run.sites) / 100
    levy = levy_sum(run.sites)
    return (
        "<table id=totals><caption>Totals</caption>"
        + head("figure", "value")
        + row("<th>sites assessed</th>", cell(str(len(run.sites)), key="sites"))
        + row("<th>sites out of scope</th>", cell(str(len(run.out_of_scope)), key="out-of-scope"))
        + row("<th>levies quoted</th>", cell(str(levy.quoted), key="quoted"))
        + row("<th>levies refused</th>", cell(str(levy.refused), key="refused"))
        + row("<th>nitrogen, kg/yr</th>", cell(f"{n:,.2f}", key="total-n"))
        + row("<th>phosphorus, kg/yr</th>", cell(f"{p:,.2f}", key="total-p"))
        + _levy_totals(levy)
        + "</table>"
    )


def _levy_totals(levy: LevySum) -> str:
    if not levy.quoted:  # nothing quoted: say so, never a £0.00 that reads like a quote
        return row("<th>levy</th>", cell("none quoted", numeric=False, key="total-levy"))
    return (
        row("<th>levy excluding VAT</th>", cell(gbp(levy.excluding_vat), key="total-levy"))
        + row("<th>VAT</th>", cell(gbp(levy.vat), key="total-vat"))
        + row(
            "<th>levy including VAT</th>",
            cell(gbp(levy.including_vat), key="total-levy-including-vat"),
        )
    )


# A summary row stays one printed line: a longer name is cut (the site's section has it whole).
NAME_CHARS = 36


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1].rstrip() + "\u2026"


def _edp_ids(site: SiteAssessment) -> str:
    if site.pricing is not None:
        return str(site.pricing.edp_id)
    return ", ".join(str(e.edp_id) for e in site.edps)


def edps_met(run: AssessmentRun) -> dict[str, str]:
    """Each EDP the run's sites meet, by id: named once in a key, not in every row."""
    names: dict[str, str] = {}
    for site in run.sites:
        if site.pricing is not None:
            names[str(site.pricing.edp_id)] = site.pricing.edp_name
        for e in site.edps:
            names.setdefault(str(e.edp_id), e.edp_name)
    return names


def edp_legend(run: AssessmentRun) -> str:
    """The key to the summary's EDP column: each EDP's id and full name, once."""
    names = edps_met(run)
    if not names:
        return ""
    rows = "".join(
        row(cell(edp_id, numeric=False), cell(names[edp_id], numeric=False))
        for edp_id in sorted(names, key=lambda i: (len(i), i))
    )
    return (
        '<table id="edp-key"><caption>EDPs: the key to the EDP column</caption><thead>'
        + head("EDP", "Environmental Delivery Plan")
        + "</thead><tbody>"
        + rows
        + "</tbody></table>"
    )


# Long: the summary table's columns written out once, in the order they print.
def summary(run: AssessmentRun) -> str:
    """One row per site, one line each, first thing after the totals, linking to the site."""
    items: list[tuple[int, str]] = []
    for site in run.sites:
        s, pricing = site.site, site.pricing
        status = (
            "quoted"
            if pricing
            else f"refused: {site.levy_refusal.code}"
            if (site.levy_refusal)
            else "not quoted"
        )
        items.append(
            (
                s.rlb_id,
                row(
                    f'<td><a href="#site-{s.rlb_id}">{s.rlb_id}</a></td>',
                    cell(s.id, numeric=False),
                    cell(_short(s.name), numeric=False),
                    cell(str(s.dwellings)),
                    cell(_edp_ids(site) or "–", numeric=False),
                    cell(kg(site.n_total)),
                    cell(kg(site.p_total)),
                    cell(gbp(pricing.amount_excluding_vat) if pricing else "–"),
                    cell(gbp(pricing.amount_including_vat) if pricing else "–"),
                    cell(status, numeric=False),
                ),
            )
        )
    for out in run.out_of_scope:
        s = out.site
        items.append(
            (
                s.rlb_id,
                row(
                    f'<td><a href="#site-{s.rlb_id}">{s.rlb_id}</a></td>',
                    cell(s.id, numeric=False),
                    cell(_short(s.name), numeric=False),
                    cell(str(s.dwellings)),
                    cell("–", numeric=False),
                    cell("–"),
                    cell("–"),
                    cell("–"),
                    cell("–"),
                    cell(f"out of scope: {out.reason_code}", numeric=False),
                ),
            )
        )
    items.sort(key=lambda item: item[0])
    header = head(
        "site",
        "id",
        "name",
        "dwellings",
        "EDP",
        "N kg/yr",
        "P kg/yr",
        "levy excl. VAT",
        "levy incl. VAT",
        "levy",
    )
    return (
        '<table id="summary"><caption>Summary: one row per site</caption><thead>'
        + header
        + "</thead><tbody>"
        + "".join(r for _, r in items)
        + "</tbody></table>"
        + edp_legend(run)
    )


def figures(site: SiteAssessment) -> str:
    """The site's loads, a step a column, nitrogen and phosphorus a row: three lines."""
    rid = site.site.rlb_id
    buffer_n = site.n_total - ((site.n_lu_post_suds or 0.0) + site.n_wwtw_perm)
    buffer_p = site.p_total - ((site.p_lu_post_suds or 0.0) + site.p_wwtw_perm)
    names = ("land use uplift", "land use after SuDS", "wastewater (permanent)", "buffer", "total")
    keys = ("uplift", "post-suds", "wastewater", "buffer", "total")
    n_values = (site.n_lu_uplift, site.n_lu_post_suds, site.n_wwtw_perm, buffer_n, site.n_total)
    p_values = (site.p_lu_uplift, site.p_lu_post_suds, site.p_wwtw_perm, buffer_p, site.p_total)
    rows = "".join(
        row(
            f"<th>{name}</th>",
            *(
                cell(kg(value), key=f"site-{rid}-{key}-{letter}")
                for key, value in zip(keys, values, strict=True)
            ),
        )
        for name, letter, values in (("nitrogen", "n", n_values), ("phosphorus", "p", p_values))
    )
    return (
        f'<table class="figures"><caption>Nutrient figures for site {rid} (kg/yr)</caption>'
        + "<thead>"
        + head("kg/yr", *names)
        + "</thead><tbody>"
        + rows
        + "</tbody></table>"
    )


# Said once above the sites rather than under every catchment table.
CATCHMENT_NOTE = (
    "In each site's per-catchment table, land use is after SuDS; the SuDS reduction is in "
    "the site's nutrient figures."
)


def catchments(site: SiteAssessment) -> str:
    if not site.catchments:
        return "<p>The site lies in no nutrient-neutrality catchment.</p>"
    rows = "".join(
        row(
            cell(c.n2k_site_name, numeric=False),
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
    return (
        f'<table class="catchments"><caption>Per catchment (kg/yr)</caption><thead>{header}'
        f"</thead><tbody>{rows}</tbody></table>"
    )


def levy(site: SiteAssessment) -> str:
    """The site's levy: one row of amounts and the working as one paragraph; or the refusal."""
    pricing = site.pricing
    if pricing is None:
        words = " ".join(escape(line) for line in levy_lines(site))
        code = site.levy_refusal.code if site.levy_refusal else "no_price"
        return (
            f'<div class="refused" data-refusal="{escape(code)}">'
            f"<p><strong>Levy not quoted</strong> (code <code>{escape(code)}</code>). "
            f"{words}</p></div>"
        )
    rid = site.site.rlb_id
    # The amounts in one row; the EDP, charge row, index and calculator are in the working.
    columns = (
        ("charge per unit", gbp(pricing.per_unit_charge), "per-unit"),
        ("units", str(pricing.units), "units"),
        ("provisional (before indexation)", gbp(pricing.base_amount), "provisional"),
        ("levy excluding VAT", gbp(pricing.amount_excluding_vat), "levy"),
        (f"VAT at {percent(pricing.vat_rate)}", gbp(pricing.vat), "vat"),
        ("levy including VAT", gbp(pricing.amount_including_vat), "levy-including-vat"),
    )
    cells = "".join(cell(value, key=f"site-{rid}-{key}") for _, value, key in columns)
    # The EDP by id (the summary's key names it): its long name once per site is a line.
    lines = pricing_lines(pricing)
    lines[0] = f"EDP {pricing.edp_id}; quote date {pricing.quote_date.isoformat()}"
    working = "; ".join(escape(line) for line in lines)
    return (
        f'<table class="levy"><caption>Levy for site {rid}: EDP {pricing.edp_id}</caption>'
        + "<thead>"
        + head(*(name for name, _, _ in columns))
        + f"</thead><tbody><tr>{cells}</tr></tbody></table>"
        + f'<p class="working">How the levy was reached: {working}.</p>'
    )


def schedule(run: AssessmentRun) -> str:
    """The charging schedule rows and index rows that priced this batch, each once."""
    charges: dict[tuple[object, ...], str] = {}
    index: dict[int, str] = {}
    vat: set[str] = set()
    for site in run.sites:
        p = site.pricing
        if p is None:
            continue
        key = (p.edp_id, p.charge_valid_from, p.charge_valid_to, p.base_charge_per_unit)
        charges[key] = row(
            cell(f"{p.edp_id} {p.edp_name}", numeric=False),
            cell(p.edp_start_date.isoformat(), numeric=False),
            cell(p.charge_valid_from.isoformat(), numeric=False),
            cell(p.charge_valid_to.isoformat(), numeric=False),
            cell(gbp_scheduled(p.base_charge_per_unit)),
        )
        for r in p.index_rows:
            index[r.charging_year] = row(
                cell(str(r.charging_year), numeric=False),
                cell(str(r.cil_index)),
                cell(str(r.index_factor)),
            )
        vat.add(percent(p.vat_rate))
    if not charges:
        return "<h2>Charging schedule</h2><p>No levy was quoted in this report.</p>"
    text = (
        "<h2>Charging schedule</h2><p>The levy is the EDP's charge per housing unit for the "
        "window that covers the quote date. The base charge is rounded to the penny; when the "
        "quote year differs from the EDP's start year it is first multiplied by the quote "
        "year's CIL index factor and divided by the start year's, then rounded to the penny. "
        "The charge per unit times the units, to the penny, is the levy excluding VAT; VAT at "
        f"{escape(', '.join(sorted(vat)))} is added for the total.</p>"
        '<table id="schedule"><caption>Charges used</caption>'
        + head("EDP", "EDP start", "valid from", "valid to", "base per unit")
        + "".join(charges.values())
        + "</table>"
    )
    if index:
        text += (
            '<table id="index-rows"><caption>CIL index rows used</caption>'
            + head("charging year", "CIL index", "factor")
            + "".join(index[y] for y in sorted(index))
            + "</table>"
        )
    return text


def provenance_table(prov: Provenance) -> str:
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
