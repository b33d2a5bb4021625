"""A query parameter misspelt or given twice is refused, never quietly ignored or joined.

Before, ``?quotedate=1999-01-01`` (or ``QuoteDate``, ``quote_date``) was ignored and the site
priced as on today: 200, with another day's charge than the one asked for; ``?columns=`` given
twice was read as its values joined by a comma.
"""

from __future__ import annotations

import pytest

from support.api_in_process import anonymous_client
from support.api_inputs import SMALL_JSON

HEADERS = {"Content-Type": "application/geo+json", "Accept": "application/json"}


def post(route: str, query: str) -> tuple[int, str]:
    answer = anonymous_client().simulate_post(
        route, query_string=query, body=SMALL_JSON.read_bytes(), headers=HEADERS
    )
    return answer.status_code, answer.json.get("code", "")


@pytest.mark.parametrize("route", ["/v1/quotes", "/v1/boundary-checks"])
@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("quotedate=2026-01-01", "bad_quote_date"),
        ("QuoteDate=2026-01-01", "bad_quote_date"),
        ("quote_date=2026-01-01", "bad_quote_date"),
        ("quote-date=2026-01-01", "bad_quote_date"),
        ("Rules=iat-2025-09", "bad_request"),
        ("columns=id%3DName&columns=dwellings%3DDwellings", "bad_request"),
        ("rules=iat-2025-09&rules=iat-2025-09", "bad_request"),
        ("reference=A&reference=B", "bad_request"),
        ("CRS=EPSG:27700", "bad_crs"),
    ],
)
def test_a_near_miss_or_a_repeat_is_refused(route: str, query: str, code: str) -> None:
    assert post(route, query) == (400, code)


def test_a_parameter_the_api_does_not_read_at_all_is_left_alone() -> None:
    assert post("/v1/quotes", "_=1732750000&quoteDate=2026-06-01") == (200, "")
