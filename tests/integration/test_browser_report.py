"""The report and the upload form in a real headless Chromium (Debian's), read like a person would.

Chromium is a Debian package that `.ci/run` installs; elsewhere, without it, these tests skip.
Screenshots are kept under ``out/`` as CI artefacts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from support.api_inputs import SMALL_JSON, collection, feature, square
from support.api_server import KEY, Server, multipart, running_server, serve_env

OUT = Path(__file__).resolve().parents[2] / "out"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("CI must have chromium: .ci/run installs it", pytrace=False)
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

# A second site beside the small sample one, so the report has an overview map too.
X, Y = 582700.0, 328100.0
DRAWN = feature(
    square(X, Y, 80.0),
    id="DRAWN-1",
    name="Drawn square",
    dwelling_category="housing",
    source="",
    dwellings=55,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("browser")
    with running_server(serve_env(folder / "results"), folder / "serve.log") as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def two_sites() -> bytes:
    small = json.loads(SMALL_JSON.read_text())
    return collection(small["features"][0], DRAWN)


def page_totals(page: Any) -> dict[str, str]:
    cells = page.locator("[data-figure]")
    return {
        cells.nth(i).get_attribute("data-figure"): cells.nth(i).inner_text().strip()
        for i in range(cells.count())
    }


def expected_totals(doc: dict[str, Any]) -> dict[str, str]:
    # Whole pennies summed, as a planner adds up the sites' 2-dp totals by hand.
    n = sum(round(s["n_total"] * 100) for s in doc["sites"]) / 100
    p = sum(round(s["p_total"] * 100) for s in doc["sites"]) / 100
    # The levy: the quoted sites' amounts excluding VAT added up; "none quoted" when no site
    # was (never a £0.00 that reads like a quote).
    quotes = [Decimal(s["pricing"]["amount_excluding_vat"]) for s in doc["sites"] if s["pricing"]]
    levy = f"£{sum(quotes, Decimal('0.00')):,.2f}" if quotes else "none quoted"
    return {
        "total-n": f"{n:,.2f}",
        "total-p": f"{p:,.2f}",
        "total-levy": levy,
        "sites": str(len(doc["sites"])),
    }


def svg_points(d: str) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in d.strip("MZ").split()]  # type: ignore[misc]


def test_the_report_draws_the_site_and_shows_the_jsons_totals(server: Server, browser: Any) -> None:
    body = two_sites()
    html = server.post("/v1/quotes", body, "application/geo+json", accept="text/html")
    doc = server.post("/v1/quotes", body, "application/geo+json").json()
    assert html.status == 200 and len(doc["sites"]) == 2
    OUT.mkdir(exist_ok=True)
    report = OUT / "report.html"
    report.write_bytes(html.body)

    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1000, "height": 900}
    )
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(report.as_uri())
    # Self-contained: the page itself and nothing else was fetched; no scripts at all.
    assert requested == [report.as_uri()]
    assert page.locator("script, link[rel=stylesheet], img, iframe").count() == 0

    shown = page_totals(page)
    for name, value in expected_totals(doc).items():
        assert shown[name] == value, name
    assert shown["bundle-sha256"] == doc["provenance"]["bundle_sha256"]
    banner = page.locator("#synthetic-banner").first
    assert banner.is_visible() and "SYNTHETIC" in banner.inner_text()
    assert banner.bounding_box()["y"] < 100  # at the very top, before any figure

    # The drawn square's map: a 80 m square centred in a frame of 80 + 2 × 125 = 330 m
    # (the pad is the larger of 0.6 × 80 = 48 m and half the 250 m minimum, 125 m), drawn
    # 640 px wide: 80 m is 80 × 640 / 330 = 155.2 px.
    section = page.locator("#site-2")
    path = section.locator("#site-boundary").get_attribute("d")
    points = svg_points(path or "")
    xs, ys = [x for x, _ in points], [y for _, y in points]
    assert max(xs) - min(xs) == pytest.approx(80 * 640 / 330, abs=0.2)
    assert max(ys) - min(ys) == pytest.approx(80 * 640 / 330, abs=0.2)
    assert min(xs) == pytest.approx(125 * 640 / 330, abs=0.2)  # the pad, on the left
    assert section.locator("[data-role=scale-bar]").count() == 1
    assert section.locator("[data-role=north-arrow]").count() == 1
    assert section.locator("[data-role=nn-catchment]").count() >= 1
    assert section.locator("[data-role=piece]").count() >= 1
    assert page.locator("svg[aria-label='2 sites']").count() == 1  # the overview map
    page.screenshot(path=str(OUT / "report.png"), full_page=True)
    page.emulate_media(media="print")
    assert page.locator("#synthetic-banner").first.is_visible()
    context.close()


def test_the_upload_form_answers_with_the_report_without_javascript(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1000, "height": 900}
    )
    page = context.new_page()
    page.goto(server.base + "/")
    upload = tmp_path / "drawn.geojson"
    upload.write_bytes(collection(DRAWN))
    page.set_input_files("#boundary", str(upload))
    page.fill("#dwellings", "12")
    page.fill("#name", "Typed in the form")
    page.fill("#api_key", KEY)
    page.select_option("#rules", "iat-2025-10")
    OUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT / "upload-form.png"))
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert "Typed in the form" in page.locator("#site-1 h2").inner_text()
    assert page.locator("#site-boundary").count() == 1
    # The same figures as the API gives for the same file and fields.
    form, form_type = multipart(
        {"boundary": ("drawn.geojson", upload.read_bytes())},
        {"dwellings": "12", "name": "Typed in the form", "rules": "iat-2025-10"},
    )
    doc = server.post("/v1/quotes", form, form_type).json()
    assert doc["provenance"]["rule_set"] == "iat-2025-10"
    shown = page_totals(page)
    for name, value in expected_totals(doc).items():
        assert shown[name] == value, name
    assert shown["rule-set"].startswith("iat-2025-10")
    page.screenshot(path=str(OUT / "upload-report.png"), full_page=True)
    context.close()


def test_the_form_gives_the_levy_table_chosen_by_keyboard(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(java_script_enabled=False, accept_downloads=True)
    page = context.new_page()
    page.goto(server.base + "/")
    upload = tmp_path / "drawn.geojson"
    upload.write_bytes(collection(DRAWN))
    page.set_input_files("#boundary", str(upload))
    page.fill("#api_key", KEY)
    # Tab into the radio group lands on the checked report; the down arrow moves to the CSV.
    page.focus("#rules")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "output-html"
    page.keyboard.press("ArrowDown")
    assert page.is_checked("#output-csv")
    with page.expect_download() as download:
        page.keyboard.press("Enter")  # Enter in a form submits it
    assert download.value.suggested_filename == "drawn.levy.csv"
    table = Path(download.value.path()).read_text(encoding="utf-8-sig")
    header, row = table.splitlines()[:2]
    assert header.startswith("RLB_ID,") and row.startswith("1,DRAWN-1,")
    context.close()


# The moment each answer was made: all that differs between two answers of one quote.
MADE_AT = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?\+00:00|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
)


def test_the_reports_links_download_each_format_of_the_same_quote(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    """Without JavaScript, under the pages' CSP: each link saves a file named after the upload
    holding what the API answers for that format (but the moment it was made)."""
    context = browser.new_context(java_script_enabled=False, accept_downloads=True)
    page = context.new_page()
    page.goto(server.base + "/")
    upload = tmp_path / "drawn.geojson"
    upload.write_bytes(collection(DRAWN))
    page.set_input_files("#boundary", str(upload))
    page.fill("#api_key", KEY)
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert page.locator("h2#downloads").inner_text() == "This quote as files"
    form, form_type = multipart({"boundary": ("drawn.geojson", upload.read_bytes())}, {})
    for label, name, accept in (
        ("The levy table", "drawn.levy.csv", "text/csv"),
        ("Every figure", "drawn.json", "application/json"),
        ("The sites with their figures", "drawn.geojson", "application/geo+json"),
    ):
        with page.expect_download() as download:
            page.get_by_role("link", name=re.compile(label)).click()
        assert download.value.suggested_filename == name
        saved = Path(download.value.path()).read_bytes().decode("utf-8")  # CRLF kept
        api = server.post("/v1/quotes", form, form_type, accept=accept).body.decode()
        assert MADE_AT.sub("-", saved) == MADE_AT.sub("-", api), name
    context.close()
