"""Content negotiation: the best type the Accept header allows, or 406 when none is."""

from __future__ import annotations

import pytest

from nrf.entrypoints.api.negotiation import accept_ranges, negotiate, quality_of
from nrf.entrypoints.api.problems import ApiProblem

JSON, GEOJSON, CSV, HTML = "application/json", "application/geo+json", "text/csv", "text/html"
OFFERED = (JSON, GEOJSON, CSV, HTML)


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [
        (None, JSON),  # no header: anything goes, the first offered
        ("", JSON),
        ("*/*", JSON),  # all four at q=1: the server's order decides
        ("text/csv", CSV),
        ("application/geo+json", GEOJSON),
        ("TEXT/HTML", HTML),  # media types are case-insensitive
        ("text/csv; charset=utf-8", CSV),  # parameters other than q do not stop a match
        # text/html 0.2, text/csv 1 (no q): CSV.
        ("text/html;q=0.2, text/csv", CSV),
        # text/* gives CSV and HTML 1, JSON and GeoJSON 0: CSV comes before HTML in the order.
        ("text/*", CSV),
        # */* gives all 0.1; text/html is more specific, 0.9: HTML.
        ("*/*;q=0.1, text/html;q=0.9", HTML),
        # JSON's own range says 0, which beats */*'s 1 for it; GeoJSON is next in the order.
        ("application/json;q=0, */*", GEOJSON),
        # application/* gives JSON and GeoJSON 0.5; text/html's 0.4 is lower.
        ("text/html;q=0.4, application/*;q=0.5", JSON),
        # A browser's header: text/html 1 beats */* 0.8.
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", HTML),
        # A malformed range ("pdf") and a malformed quality are skipped, the rest still counts.
        ("pdf, text/csv;q=zero, application/geo+json;q=0.3", GEOJSON),
    ],
)
def test_the_best_acceptable_type_is_chosen(accept: str | None, chosen: str) -> None:
    assert negotiate(accept, OFFERED) == chosen


@pytest.mark.parametrize(
    "accept",
    [
        "application/pdf",
        "image/*",
        "text/csv;q=0, text/html;q=0, application/*;q=0",  # everything offered refused
        "*/*;q=0",
        "application/problem+json",  # errors come in it, but a quote is never one
    ],
)
def test_nothing_acceptable_is_a_406_problem(accept: str) -> None:
    with pytest.raises(ApiProblem) as raised:
        negotiate(accept, OFFERED)
    assert (raised.value.code, raised.value.status) == ("not_acceptable", 406)
    assert "application/json" in raised.value.detail  # it says what could be sent


def test_a_range_takes_the_quality_of_its_most_specific_match() -> None:
    ranges = accept_ranges("*/*;q=0.3, text/*;q=0.6, text/csv;q=0.9, bad, a/b;q=2")
    # "bad" has no slash and q=2 is outside 0..1: both skipped.
    assert ranges == [("*", "*", 0.3), ("text", "*", 0.6), ("text", "csv", 0.9)]
    assert (quality_of(CSV, ranges), quality_of(HTML, ranges), quality_of(JSON, ranges)) == (
        0.9,
        0.6,
        0.3,
    )
