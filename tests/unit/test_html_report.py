"""The report page from in-memory data: map layers, escaping, the synthetic banner."""

from __future__ import annotations

import re

from shapely.geometry import box

from nrf.adapters.outputs.html_report import render_report
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import BundleInfo, Development
from nrf.domain.rules import rule_set_named
from support.reference import QUOTE_DATE, STRIP_ORIGIN, InMemoryBoundaryData
from support.reference import two_catchment_strip as repo

X0, Y0 = STRIP_ORIGIN


def page(data: InMemoryBoundaryData, name: str = "Site") -> str:
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
    return render_report(run, [dev], data.reference_for)


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
    # Levy (EDP 1): 16.92 x 3000.50 + 1.38 x 40000 = 50768.46 + 55200 = 105968.46;
    # 5 % 5298.423, 10 % 10596.846, 3 % 3179.0538; the rest 86894.14.
    assert [shown[f"total-{k}"] for k in ("levy", "monitoring", "maintenance", "admin")] == [
        "£105,968.46",
        "£5,298.42",
        "£10,596.85",
        "£3,179.05",
    ]
    assert shown["total-mitigation"] == "£86,894.14"
    # The site's table: the buffer row is what the total adds, 16.92 - (4.63 + 9.47) = 2.82
    # and 1.38 - (0.20 + 0.95) = 0.23.
    assert "<th>buffer</th><td class=n>2.82</td><td class=n>0.23</td>" in html


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
    assert set(files) == {"result.json", "result.geojson", "result.csv", "result.provenance.json"}
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
