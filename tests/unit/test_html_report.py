"""The report page from in-memory data: map layers, escaping, the synthetic banner."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import attrs
from shapely.geometry import box

from nrf.adapters.outputs.html_report import render_report
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import BundleInfo, Development
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.results import LevyPricing, LevyRefusal
from nrf.domain.rules import rule_set_named
from support.reference import QUOTE_DATE, STRIP_ORIGIN, InMemoryBoundaryData
from support.reference import two_catchment_strip as repo
from support.runs import EXCLUDED, INDEXED, NORFOLK, NORFOLK_OVERLAP

X0, Y0 = STRIP_ORIGIN


def test_a_quote_shows_the_charge_the_vat_and_how_it_was_reached() -> None:
    html = page(repo(), pricing=NORFOLK)
    shown = dict(re.findall(r'data-figure="([\w-]+)">([^<]*)<', html))
    # 10 units x £2,675.00 = £26,750.00 excluding VAT; VAT 20 % £5,350.00; total £32,100.00.
    assert (shown["total-levy"], shown["total-vat"]) == ("£26,750.00", "£5,350.00")
    assert shown["total-levy-including-vat"] == "£32,100.00"
    assert (shown["site-1-per-unit"], shown["site-1-units"]) == ("£2,675.00", "10")
    assert (shown["quoted"], shown["refused"]) == ("1", "0")
    for text in (
        "1 Norfolk",
        "2026-04-01 to 2027-03-31",
        "£2,675.0000",
        "10 units x £2,675.00 = £26,750.00 excluding VAT",
        "VAT at 20%: £5,350.00; total including VAT £32,100.00",
        "edp-schedule-1",
        '<table id="schedule">',
    ):
        assert text in html, text


def test_an_indexed_quote_shows_both_index_rows() -> None:
    html = page(repo(), pricing=INDEXED)
    # 2,675.0000 x 1.0450 / 1.0000 = 2,795.375 -> £2,795.38 per unit.
    assert "£2,675.0000 per unit x 1.0450 (CIL index factor 2027) / 1.0000" in html
    assert "<td class=n>2027</td>" not in html  # years are labels, not figures
    assert re.search(r"<td>2026</td><td class=n>381</td><td class=n>1.0000</td>", html)
    assert "Before indexation (provisional): £8,025.00" in html


def test_a_refused_levy_shows_its_code_and_words_and_no_money() -> None:
    html = page(repo(), refusal=EXCLUDED, excluded=("Broad Fen SSSI buffer", ""))
    shown = dict(re.findall(r'data-figure="([\w-]+)">([^<]*)<', html))
    assert 'data-refusal="excluded_area"' in html
    assert "Excluded areas met: Broad Fen SSSI buffer; (unnamed)" in html
    assert "Habitats Regulations Assessment" in html
    assert (shown["quoted"], shown["refused"]) == ("0", "1")
    assert "refused: excluded_area" in html  # the summary row
    money = {"per-unit", "units", "provisional", "levy", "vat", "levy-including-vat"}
    assert not {f"site-1-{key}" for key in money} & set(shown)  # no per-site money cells
    assert "No levy was quoted in this report." in html


def test_the_page_is_stamped_with_time_input_and_reference() -> None:
    made = datetime(2026, 11, 26, 9, 5, 7, tzinfo=UTC)
    html = page(
        repo(),
        pricing=NORFOLK,
        stamp=OutputStamp(made_at=made, input_name="sites.geojson", reference="NRL-000123"),
    )
    shown = dict(re.findall(r'data-figure="([\w-]+)">([^<]*)<', html))
    assert (shown["made-at"], shown["input"], shown["reference"]) == (
        "2026-11-26 09:05:07 UTC",
        "sites.geojson",
        "NRL-000123",
    )
    assert "<title>Nutrient levy report NRL-000123</title>" in html
    assert "quote date 2026-11-26" in html


def test_one_summary_row_per_site_before_any_site_section() -> None:
    html = page(repo(), pricing=NORFOLK)
    summary = html[
        html.index('<table id="summary">') : html.index(
            "</table>", html.index('<table id="summary">')
        )
    ]
    assert summary.count('<a href="#site-1">1</a>') == 1 and summary.count("<tr>") == 2
    assert "£26,750.00" in summary and "£32,100.00" in summary
    # The EDP by its id in the row, named once in the key under the table.
    assert "<td>1</td>" in summary and "Norfolk" not in summary
    assert '<table id="edp-key">' in html and "<td>1</td><td>Norfolk</td>" in html
    assert html.index('id="summary"') < html.index('id="site-1"')


def test_the_map_prints_its_catchment_and_edp_names_with_a_legend_beside_it() -> None:
    html = page(repo(), pricing=NORFOLK)
    assert re.search(r'<text data-role="nn-label"[^>]*>River Wensum SAC</text>', html)
    assert re.search(
        r'<text data-role="edp-label"[^>]*><title>EDP: 1 Norfolk</title>'
        r"<tspan[^>]*>EDP: 1 Norfolk</tspan></text>",
        html,
    )
    figure = html[html.index('<figure class="site-map">') : html.index("</figure>")]
    assert "<figcaption>" in figure and "works catchment" in figure


def page(
    data: InMemoryBoundaryData,
    name: str = "Site",
    *,
    pricing: LevyPricing | None = None,
    refusal: LevyRefusal | None = None,
    excluded: tuple[str, ...] = (),
    stamp: OutputStamp | None = None,
) -> str:
    dev = Development(
        rlb_id=1,
        id="REF-1",
        name=name,
        dwelling_category="housing",
        source="",
        dwellings=10,
        boundary=box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200),
    )
    run = AssessDevelopments(data)([dev], rule_set_named("iat-2026-04"), QUOTE_DATE)
    # The levy as the assessment will fill it (support/runs.py's hand-worked records).
    [site] = run.sites
    edps = (NORFOLK_OVERLAP,) if pricing is not None or excluded else ()
    site = attrs.evolve(
        site, pricing=pricing, levy_refusal=refusal, excluded_areas=excluded, edps=edps
    )
    return render_report(attrs.evolve(run, sites=(site,)), [dev], data.reference_for, stamp)


def test_the_map_has_every_layer_and_shades_the_piece_by_its_uplift() -> None:
    html = page(repo())
    assert html.count('id="site-boundary"') == 1
    assert 'data-role="works"' in html and 'stroke-dasharray="8 4"' in html
    assert re.search(r'data-role="nn-catchment"[^>]*><title>River Wensum SAC</title>', html)
    # The one coefficient polygon: N 12.0 residential - 5.57 current = 6.43 kg/ha/yr,
    # in the 5-15 class: the piece has the colour the legend gives that class (and no other's).
    legend = re.findall(r'<span style="background:(#\w+)"></span>([^<]+)', html)
    swatches = {label: colour for colour, label in legend}
    assert len(set(swatches.values())) == len(swatches)
    [piece] = re.findall(r'<path data-role="piece"[^>]*>', html)
    assert f'fill="{swatches["N uplift 5 to 15 kg/ha/yr"]}"' in piece
    assert 'data-role="scale-bar"' in html and 'data-role="north-arrow"' in html


def test_the_page_shows_the_sites_figures_worked_by_hand() -> None:
    html = page(repo())
    shown = dict(re.findall(r'data-figure="([\w-]+)">([^<]*)<', html))
    # 100 m x 100 m = 1.00 ha in the Wensum, 10 dwellings, iat-2026-04: greenspace applies,
    # N (0.8 x 12 + 0.6 - 5.57) x 1 = 4.63, P (0.8 x 0.5 + 0.04 - 0.24) x 1 = 0.20; no SuDS.
    # Wastewater 10 x 2.4 x 120 = 2880 l/day x 365.25 x 0.9: N 10 mg/l 9.46728, P 0.946728.
    # N (4.63 + 9.46728) x 1.2 = 16.916736 -> 16.92; P (0.20 + 0.946728) x 1.2 = 1.3760736.
    assert (shown["sites"], shown["total-n"], shown["total-p"]) == ("1", "16.92", "1.38")
    # The site's table: the buffer row is what the total adds, 16.92 - (4.63 + 9.47) = 2.82
    # and 1.38 - (0.20 + 0.95) = 0.23.
    assert (shown["site-1-buffer-n"], shown["site-1-buffer-p"]) == ("2.82", "0.23")


def test_nothing_from_the_input_is_taken_as_markup() -> None:
    html = page(repo(), name='<script>alert("x")</script> & co')
    assert "<script" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in html


def test_only_a_synthetic_bundle_gets_the_banner_top_and_bottom() -> None:
    assert 'id="synthetic-banner"' not in page(repo())
    info = BundleInfo(
        name="demo",
        version="1",
        created="2026-11-25",
        description="synthetic demonstration data",
        sha256="a" * 64,
    )
    synthetic = repo(info=info)
    html = page(synthetic)
    assert html.count('id="synthetic-banner"') == 2
    assert html.index('id="synthetic-banner"') < html.index("<h1>")
    assert 'data-figure="bundle-sha256"><code>' + "a" * 64 in html


def test_the_page_loads_nothing_from_elsewhere() -> None:
    html = page(repo())
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html


class UnreadableBundle(InMemoryBoundaryData):
    """Assesses from memory, but fails when the report asks for a site's map data again."""

    def __init__(self) -> None:
        self._inner = repo()
        self.report_reads = 0
        self.batches: list[int] = []

    def info(self) -> BundleInfo:
        return self._inner.info()

    def lookups(self):
        return self._inner.lookups()

    def reference_for(self, boundary):
        self.report_reads += 1
        if self.report_reads > 1:
            raise OSError("disk gone")
        return self._inner.reference_for(boundary)


def test_a_job_whose_report_cannot_be_drawn_still_stores_its_results() -> None:
    from nrf.adapters.outputs.html_report import report_renderer

    data = UnreadableBundle()
    dev = Development(
        rlb_id=1,
        id="R",
        name="S",
        dwelling_category="housing",
        source="",
        dwellings=10,
        boundary=box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200),
    )
    run = AssessDevelopments(data)([dev], rule_set_named("iat-2026-04"), QUOTE_DATE)
    files = report_renderer(data)(run, [dev])
    assert set(files) == {
        "result.json",
        "result.geojson",
        "result.bng.geojson",
        "result.csv",
        "result.levy.csv",
        "result.provenance.json",
    }
    assert data.report_reads == 2  # the assessment's read, then the report's failed one
    fine = report_renderer(repo())(run, [dev])
    assert b'id="site-boundary"' in fine["result.html"]


def test_an_out_of_scope_site_is_drawn_with_its_reason() -> None:
    # South of the strip: no NN catchment and works 2002 has no permit row.
    dev = Development(
        rlb_id=1,
        id="S",
        name="South",
        dwelling_category="housing",
        source="",
        dwellings=10,
        boundary=box(X0 + 100, Y0 - 300, X0 + 200, Y0 - 200),
    )
    data = repo()
    run = AssessDevelopments(data)([dev], rule_set_named("iat-2026-04"), QUOTE_DATE)
    html = render_report(run, [dev], data.reference_for)
    assert "outside_catchments_no_wwtw" in html and 'id="site-boundary"' in html


def test_the_legend_names_each_uplift_class_in_words() -> None:
    html = page(repo())
    for label in (
        "N uplift below 0 kg/ha/yr",
        "N uplift 5 to 15 kg/ha/yr",
        "N uplift 30 kg/ha/yr and over",
    ):
        assert label in html
    assert "inf" not in html


def test_the_overview_prints_each_site_number_on_its_site() -> None:
    data = repo()
    devs = [
        Development(
            rlb_id=n,
            id=f"R{n}",
            name="S",
            dwelling_category="housing",
            source="",
            dwellings=10,
            boundary=box(X0 + 300 * n, Y0 + 100, X0 + 300 * n + 100, Y0 + 200),
        )
        for n in (1, 2)
    ]
    run = AssessDevelopments(data)(devs, rule_set_named("iat-2026-04"), QUOTE_DATE)
    html = render_report(run, devs, data.reference_for)
    overview = html[html.index('<figure class="overview">') :]
    labels = re.findall(r'<text data-role="site-label"[^>]*>(\d+)</text>', overview)
    assert labels == ["1", "2"]
    assert "labelled with its site number" in overview


def test_a_site_refused_for_an_excluded_area_shows_the_area_on_its_map_with_a_key_entry() -> None:
    from nrf.domain.model import ExcludedArea

    data = repo()
    # A buffered SSSI over the site's west half (the site is X0+100..X0+200).
    fen = ExcludedArea(box(X0 + 50, Y0 + 50, X0 + 150, Y0 + 250), "Broad Fen SSSI buffer")
    data._excluded.append(fen)
    html = page(data, refusal=EXCLUDED, excluded=("Broad Fen SSSI buffer",))
    [area] = re.findall(r'<path data-role="excluded-area"[^>]*>.*?</path>', html)
    assert "<title>Broad Fen SSSI buffer</title>" in area
    legend = dict(
        (label, colour)
        for colour, label in re.findall(r'<span style="background:(#\w+)"></span>([^<]+)', html)
    )
    assert f'fill="{legend["excluded area (SSSI and its buffer): no levy"]}"' in area
    # Without excluded areas in view, nothing of the kind is drawn.
    assert 'data-role="excluded-area"' not in page(repo(), pricing=NORFOLK)


def test_a_summary_row_is_one_line_with_the_edp_named_once() -> None:
    long_name = "Land north of the old railway line between Station Road and the Common"
    html = page(repo(), long_name, pricing=NORFOLK)
    summary = html[html.index('<table id="summary">') : html.index('<table id="edp-key">')]
    # 36 characters at most: 35 of the name (trailing space dropped) and an ellipsis.
    assert "<td>Land north of the old railway line\u2026</td>" in summary
    assert long_name in html  # whole in the site's own heading
    assert html.count("<td>Norfolk</td>") == 1  # the key
