"""The report printed to PDF by Chromium: A4 pages counted, labels printed as text, and the
report page and the upload form checked by axe-core at WCAG 2.2 AA.

The runs are assessed from the bundled data in the test, and every site is given the same
hand-made quote (support/runs.py's NORFOLK, 10 units x £2,675.00), so the page count depends
on the layout alone, not on which levy the data happens to give. Needs Debian's chromium and
poppler-utils (`.ci/run` installs both) and axe-core from npm (installed here once, under
``out/axe``); elsewhere, without them, these tests skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
import pytest

from nrf.adapters.outputs.html_report import render_report
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import validate_features
from nrf.entrypoints.roots.core import Core, build
from support.api_inputs import BNW_SHP, SMALL_JSON
from support.api_server import Server, running_server, serve_env
from support.reference import QUOTE_DATE
from support.runs import NORFOLK, NORFOLK_OVERLAP
from support.sample_facts import BNW_SITES

OUT = Path(__file__).resolve().parents[2] / "out"
AXE_VERSION = "4.10.3"
AXE = OUT / "axe" / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TOOLS = {"chromium": CHROMIUM, "pdftotext": shutil.which("pdftotext")}
if not all(TOOLS.values()):
    missing = ", ".join(name for name, path in TOOLS.items() if path is None)
    if os.environ.get("CI"):
        pytest.fail(f"CI must have {missing}: .ci/run installs them", pytrace=False)
    pytest.skip(
        f"{missing} not installed (apt-get install chromium poppler-utils)", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api")
STAMP = OutputStamp(
    made_at=datetime(2026, 11, 26, 9, 5, 7, tzinfo=UTC),
    input_name="sample.shp",
    reference="NRL-000123",
)


def quoted(run: AssessmentRun) -> AssessmentRun:
    """Every site quoted alike: 10 units x £2,675.00 = £26,750.00 (support/runs.py)."""
    sites = tuple(
        attrs.evolve(s, pricing=NORFOLK, levy_refusal=None, edps=(NORFOLK_OVERLAP,))
        for s in run.sites
    )
    return attrs.evolve(run, sites=sites)


def report(source: Path, name: str) -> tuple[Path, AssessmentRun]:
    container = build(Core)
    developments = validate_features(read_boundary_file(source))
    run = quoted(container.assess_developments()(developments, rule_set_named(None), QUOTE_DATE))
    html = render_report(run, developments, container.boundary_data().reference_for, STAMP)
    OUT.mkdir(exist_ok=True)
    path = OUT / f"{name}.html"
    path.write_text(html, encoding="utf-8")
    return path, run


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def printed(browser: Any, html: Path) -> list[str]:
    """The page printed to PDF as Chromium prints it (A4 from the page's own @page), and the
    text of each printed page as pdftotext reads it (pages split on form feeds)."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(html.as_uri())
    pdf = html.with_suffix(".pdf")
    page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
    context.close()
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    assert "(A4)" in info, info
    return text.split("\f")[:-1]  # pdftotext ends every page with a form feed


def test_one_site_prints_on_at_most_two_a4_pages_with_its_labels_as_text(browser: Any) -> None:
    html, run = report(SMALL_JSON, "print-one")
    pages = printed(browser, html)
    # Measured: one page (the title, stamp, totals, summary, EDP key, provenance, schedule,
    # the key to the maps, and the site's section with its map beside its tables).
    assert 1 <= len(pages) <= 2, len(pages)
    text = "\n".join(pages)
    for words in ("Nutrient levy report NRL-000123", "2026-11-26 09:05:07 UTC", "sample.shp"):
        assert words in pages[0], words
    assert "Summary: one row per site" in pages[0] and "Charging schedule" in pages[0]
    # Labels printed on the map are text in the PDF, not pictures of text.
    [site] = run.sites
    for catchment in site.nn_catchments:
        assert catchment in text, catchment
    assert "EDP: 1 Norfolk" in text
    assert "Key:" in text and "works catchment" in text and "excluded area" in text
    assert "£26,750.00" in text and "£32,100.00" in text
    # A site's section is never split over two pages.
    assert sum(t.count("Site 1: ") for t in pages) == 1


def test_245_sites_print_on_at_most_60_pages_each_site_whole(browser: Any) -> None:
    html, run = report(BNW_SHP, "print-245")
    assert len(run.sites) + len(run.out_of_scope) == BNW_SITES
    pages = printed(browser, html)
    # Measured on 2026-11-27: 38 pages (the summary's 245 one-line rows on four, its header
    # repeated on each; the overview map; then five or six mapped sites a page, the map
    # beside the tables, and about seven unmapped sites a page), against 117 before.
    assert len(pages) <= 60, len(pages)
    # Every site's heading is printed once, and its section is whole on that page: the
    # heading and its last table's totals are on the same page.
    headings = [
        (number, line.strip())
        for number, text in enumerate(pages)
        for line in text.splitlines()
        if re.match(r"\s*Site \d+: ", line)
    ]
    assert len(headings) == BNW_SITES
    for site in run.sites:
        [(number, _)] = [h for h in headings if h[1].startswith(f"Site {site.site.rlb_id}: ")]
        assert f"Levy for site {site.site.rlb_id}: EDP 1" in pages[number]
        assert f"Nutrient figures for site {site.site.rlb_id}" in pages[number]
    # The summary's rows are one line each: every site's row is one line of the summary pages,
    # holding its site number, its levy and its status.
    front = "\n".join(pages[: headings[0][0]])
    quoted_rows = [line for line in front.splitlines() if line.rstrip().endswith("quoted")]
    assert len(quoted_rows) == len(run.sites)
    assert all("£26,750.00" in line and "£32,100.00" in line for line in quoted_rows)
    # The summary's header is repeated on each page it spans, and the EDP is named once there.
    summary_pages = [t for t in pages if "levy excl." in t]
    assert len(summary_pages) >= 2
    assert front.count("Broads SAC, Broadland Ramsar and River Wensum SAC") <= 2
    assert "Where the sites are" in front
    assert "out of scope" in pages[-1]


def test_the_maps_edp_heading_never_runs_under_the_north_arrow(browser: Any) -> None:
    """Measured by the browser: the heading's box and the arrow's do not meet, for the longest
    EDP name the sample data has, and for a longer made-up one."""
    from nrf.adapters.outputs import svg_map

    container = build(Core)
    developments = validate_features(read_boundary_file(SMALL_JSON))
    reference = container.boundary_data().reference_for(developments[0].boundary)
    names = [
        "1 Broads SAC, Broadland Ramsar and River Wensum SAC Environmental Delivery Plan",
        "1 " + "Averyveryverylongwordwithoutanyspaces" * 3 + " and more words " * 8,
    ]
    context = browser.new_context()
    page = context.new_page()
    for name in names:
        svg = svg_map.site_map(
            developments[0].boundary,
            reference,
            nn_names=[],
            wwtw_id=None,
            label="map",
            edp_names=[name],
        )
        page.set_content(f"<!doctype html><html><body>{svg}</body></html>")
        boxes = page.evaluate(
            """() => ["edp-label", "north-arrow"].map((role) => {
                const b = document.querySelector(`[data-role="${role}"]`).getBBox();
                return [b.x, b.y, b.x + b.width, b.y + b.height];
            })"""
        )
        (lx0, ly0, lx1, ly1), (ax0, ay0, ax1, ay1) = boxes
        overlap = lx0 < ax1 and ax0 < lx1 and ly0 < ay1 and ay0 < ly1
        assert not overlap, (name, boxes)
        assert lx1 < svg_map.WIDTH  # and it stays inside the map
    context.close()


NPM_QUIET = ("--no-audit", "--no-fund", "--no-save")
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture(scope="module")
def axe() -> str:
    """axe-core's script, installed from npm once (pinned) under out/axe."""
    npm = shutil.which("npm")
    if not AXE.exists() and npm is not None:
        subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(AXE.parents[2]),
                f"axe-core@{AXE_VERSION}",
                *NPM_QUIET,
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail("CI must have npm to install axe-core", pytrace=False)
        pytest.skip("axe-core is not installed and npm is not available")
    return AXE.read_text(encoding="utf-8")


def violations(browser: Any, url: str, axe: str) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.2 A and AA violations of the page at ``url`` (the checker is the
    only script: the pages themselves have none)."""
    context = browser.new_context(bypass_csp=True, viewport={"width": 1000, "height": 900})
    page = context.new_page()
    page.goto(url)
    page.add_script_tag(content=axe)
    found: list[dict[str, Any]] = page.evaluate(
        """async (tags) => {
            const result = await axe.run(document, {runOnly: {type: "tag", values: tags}});
            return result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
            }));
        }""",
        WCAG_22_AA,
    )
    context.close()
    return found


def test_the_report_has_no_wcag_22_aa_violations(browser: Any, axe: str) -> None:
    html, _ = report(SMALL_JSON, "axe-report")
    assert violations(browser, html.as_uri(), axe) == []


def test_a_refused_levy_report_has_no_wcag_22_aa_violations(browser: Any, axe: str) -> None:
    from support.runs import EXCLUDED

    container = build(Core)
    developments = validate_features(read_boundary_file(SMALL_JSON))
    run = container.assess_developments()(developments, rule_set_named(None), QUOTE_DATE)
    sites = tuple(
        attrs.evolve(s, pricing=None, levy_refusal=EXCLUDED, excluded_areas=("Fen", ""))
        for s in run.sites
    )
    refused = attrs.evolve(run, sites=sites)
    page = render_report(refused, developments, container.boundary_data().reference_for, STAMP)
    path = OUT / "axe-refused.html"
    path.write_text(page, encoding="utf-8")
    assert violations(browser, path.as_uri(), axe) == []


def test_the_upload_form_has_no_wcag_22_aa_violations(
    browser: Any, axe: str, tmp_path: Path
) -> None:
    with running_server(serve_env(tmp_path / "results"), tmp_path / "serve.log") as server:
        assert isinstance(server, Server)
        assert violations(browser, server.base + "/", axe) == []


def test_the_forms_answer_with_its_links_has_no_wcag_22_aa_violations(
    browser: Any, axe: str, tmp_path: Path
) -> None:
    """The report as the form answers it, with the section of links to the other formats:
    no violation on screen, and the section left out when printed."""
    from support.api_server import KEY, multipart

    form, form_type = multipart(
        {"boundary": ("small.geojson", SMALL_JSON.read_bytes())}, {"api_key": KEY}
    )
    with running_server(serve_env(tmp_path / "results"), tmp_path / "serve.log") as server:
        answer = server.post("/", form, form_type, key=None, accept="text/html")
    assert answer.status == 200 and b'<h2 id="downloads">' in answer.body
    OUT.mkdir(exist_ok=True)
    path = OUT / "axe-form-answer.html"
    path.write_bytes(answer.body)
    assert violations(browser, path.as_uri(), axe) == []
    # The links are for the screen: the printed report is the report alone.
    pages = printed(browser, path)
    assert pages and not any("This quote as files" in text for text in pages)
    assert "Summary" in pages[0]


def test_the_forms_problem_page_has_no_wcag_22_aa_violations(
    browser: Any, axe: str, tmp_path: Path
) -> None:
    """A refused upload's page (the problems, then the form again as it was filled in)."""
    from support.api_server import KEY, multipart

    bad = b'{"type": "Feature", "properties": {"dwellings": "many"}, "geometry": null}'
    form, form_type = multipart(
        {"boundary": ("bad.geojson", bad)}, {"api_key": KEY, "name": "Mill Lane"}
    )
    with running_server(serve_env(tmp_path / "results"), tmp_path / "serve.log") as server:
        answer = server.post("/", form, form_type, key=None, accept="text/html")
    assert answer.status == 422 and b"Back to the form" in answer.body
    OUT.mkdir(exist_ok=True)
    path = OUT / "axe-form-problem.html"
    path.write_bytes(answer.body)
    assert violations(browser, path.as_uri(), axe) == []
