"""A form field given twice, or spelt unlike the field it must mean, is refused, not ignored.

Before, ``dwellings`` sent as 10 and then 20 was priced as 20 homes, ``quoteDate`` twice as its
last, and ``quotedate=1999-06-01`` or ``Dwellings=77`` were ignored: 200, priced as on today
and with the file's own dwellings.
"""

from __future__ import annotations

import pytest

from support.api_in_process import anonymous_client
from support.api_inputs import SMALL_JSON
from support.api_server import multipart


def post(route: str, fields: list[tuple[str, str]]) -> tuple[int, str]:
    body, content_type = multipart({"boundary": ("s.geojson", SMALL_JSON.read_bytes())}, {})
    boundary = content_type.split("boundary=")[1]
    extra = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields
    )
    body = extra + body
    headers = {"Content-Type": content_type, "Accept": "application/json"}
    answer = anonymous_client().simulate_post(route, body=body, headers=headers)
    return answer.status_code, answer.json.get("code", "")


@pytest.mark.parametrize("route", ["/v1/quotes", "/v1/boundary-checks"])
@pytest.mark.parametrize(
    "fields",
    [
        [("dwellings", "10"), ("dwellings", "20")],
        [("quoteDate", "2026-06-01"), ("quoteDate", "2027-06-01")],
        [("quotedate", "1999-06-01")],
        [("Dwellings", "77")],
        [("dwelling-category", "flats")],
        [("Reference", "NRL-1")],
    ],
)
def test_a_repeated_or_misspelt_field_is_refused(route: str, fields: list[tuple[str, str]]) -> None:
    assert post(route, fields) == (400, "bad_request")


def test_fields_given_once_and_fields_unlike_any_are_read_as_before() -> None:
    assert post("/v1/quotes", [("dwellings", "10"), ("comment", "x")]) == (200, "")
