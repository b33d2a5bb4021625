"""Who may send a body: the key is judged from the headers, or from the form's first field."""

from __future__ import annotations

from nrf.adapters.http_server.gate import MORE, Answer, Head, NeedsPrefix
from nrf.entrypoints.api.admission import FORM_KEY_WINDOW, admission, form_key
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.config import http_limits, load_api_settings

KEY = "k" * 16
FORM = "multipart/form-data; boundary=b"


def field(name: str, value: str) -> bytes:
    return f'--b\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()


FILE = b'--b\r\nContent-Disposition: form-data; name="boundary"; filename="s.json"\r\n\r\n{}\r\n'


def head(method: str = "POST", path: str = "/v1/quotes", **headers: str) -> Head:
    return Head(
        method=method, path=path, headers={k.replace("_", "-"): v for k, v in headers.items()}
    )


def test_the_key_field_is_found_only_before_the_file() -> None:
    assert form_key(field("name", "Site") + field("api_key", KEY) + b"--b", FORM) == KEY
    assert form_key(FILE + field("api_key", KEY) + b"--b--\r\n", FORM) is None
    # Cut off inside the key's value: not yet known.
    assert form_key(field("api_key", KEY)[:-5], FORM) == MORE


def test_a_body_needs_a_valid_header_key_and_reads_need_none() -> None:
    admit = admission(ApiKeys([KEY]))
    assert admit(head("GET", "/v1/jobs/x")) is None
    assert admit(head(x_api_key=KEY)) is None
    missing, wrong = admit(head()), admit(head(x_api_key="w" * 16))
    assert isinstance(missing, Answer) and isinstance(wrong, Answer)
    assert (missing.status, wrong.status) == (401, 401)
    assert b'"code": "unauthorized"' in wrong.body
    assert admission(ApiKeys([], anonymous=True))(head()) is None


def test_the_form_without_a_header_is_judged_on_its_first_field() -> None:
    verdict = admission(ApiKeys([KEY]))(head("POST", "/", content_type=FORM, accept="text/html"))
    assert isinstance(verdict, NeedsPrefix) and verdict.size == FORM_KEY_WINDOW == 65_536
    assert verdict.check(field("api_key", KEY) + b"--b", False) is None
    assert verdict.check(field("api_key", KEY)[:10], False) == MORE
    # The window is full (final) without a key, or the file came first: refused, as a page.
    for refused in (verdict.check(field("api_key", KEY)[:10], True), verdict.check(FILE, False)):
        assert isinstance(refused, Answer) and refused.status == 401
        assert dict(refused.headers)["content-type"].startswith("text/html")
    wrong = verdict.check(field("api_key", "w" * 16) + b"--b", False)
    assert isinstance(wrong, Answer) and wrong.status == 401


def test_the_api_limits_come_from_its_settings() -> None:
    environ = {
        "NRF_API_KEYS": KEY,
        "NRF_API_THREADS": "3",
        "NRF_API_BODY_TIMEOUT_SECONDS": "7",
        "NRF_API_SEND_TIMEOUT_SECONDS": "9",
        "NRF_API_MAX_REQUESTS": "500",
        "NRF_API_MAX_RSS_MB": "512",
    }
    limits = http_limits(load_api_settings(environ), max_file_bytes=20_000)
    # 512 MiB = 512 x 1,048,576 = 536,870,912 bytes; jitter is a tenth of 500 = 50.
    assert (limits.max_rss_bytes, limits.max_requests, limits.max_requests_jitter) == (
        536_870_912,
        500,
        50,
    )
    assert (limits.work_threads, limits.body_seconds, limits.max_body_bytes) == (3, 7.0, 20_000)
    assert limits.send_seconds == 9.0
    # Unset, the send deadline is the documented 60 s (docs/api.md).
    assert http_limits(load_api_settings({"NRF_API_KEYS": KEY}), 1).send_seconds == 60.0


def test_a_process_is_replaced_by_count_rarely_enough_that_its_start_is_no_cost_per_quote() -> None:
    # A process's start costs 0.8-3 s of CPU (docs/benchmark.md). Replaced every 1,000
    # requests that is 0.8-3 ms a quote, more than the quote's own 0.6-1 ms; every 100,000 it
    # is 3 s / 100,000 = 0.03 ms. The jitter stays a tenth: 10,000.
    limits = http_limits(load_api_settings({"NRF_API_KEYS": KEY}), 1)
    assert limits.max_requests >= 100_000
    assert limits.max_requests_jitter == limits.max_requests // 10
