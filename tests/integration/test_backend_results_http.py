"""HttpBackendResults against a fake Defra backend over real loopback HTTP, failures included."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from fakes import FakeClock, FakeSleeper
from nrf.adapters.backend.http_backend_results import HttpBackendResults
from nrf.domain.jobs import Notification, NotificationKind
from nrf.domain.result_port import BACKEND_RECIPIENT, BODY_FIELD, TRACE_FIELD
from support.backend_schema import assert_valid_patch
from support.fake_backend import FakeBackend, running_fake_backend
from support.loopback_server import LoopbackServer
from support.moto_server import free_port
from support.worker_jobs import http_get

# A body of the backend's current schema (what nrf.domain.quote_update makes): 10 homes at
# £2,675 in the EDP's start year, N 71.06 (band 4), P 1.5 (band 2).
BODY: dict[str, Any] = {
    "edps": [
        {
            "edpId": 1,
            "edpName": "Norfolk EDP",
            "edpType": "NUTRIENT",
            "impact": {
                "nitrogenTotal": {"amount": 71.06, "unit": "mg/I TP", "band": {"min": 4, "max": 4}},
                "phosphorusTotal": {"amount": 1.5, "unit": "mg/I TP", "band": {"min": 2, "max": 2}},
            },
            "catchments": [
                {
                    "label": "River Wensum SAC",
                    "catchmentId": "1",
                    "catchmentOverlapPercentage": 100.0,
                }
            ],
            "levyGbp": {
                "amountExcludingVat": 26750.0,
                "amountInflationAdjusted": 26750.0,
                "baseAmount": 26750.0,
                "modelVersion": 1,
            },
        }
    ]
}


def test_the_body_here_is_one_the_backend_accepts() -> None:
    assert_valid_patch(BODY)


@pytest.fixture
def backend() -> Iterator[FakeBackend]:
    with running_fake_backend() as server:
        yield server


def report(
    body: dict = BODY, reference: str = "NRF-000123", trace: str = "trace-42"
) -> Notification:
    details = {BODY_FIELD: json.dumps(body), TRACE_FIELD: trace}
    return Notification(
        kind=NotificationKind.BACKEND_RESULT,
        recipient=BACKEND_RECIPIENT,
        job_id=reference,
        personalisation=details,
        reference=reference,
    )


def client(
    base_url: str,
    sleeper: FakeSleeper,
    *,
    timeout: float = 5.0,
    retries: int = 3,
    key: str = "backend-test-key",
) -> HttpBackendResults:
    return HttpBackendResults(
        base_url,
        key,
        timeout=timeout,
        max_retries=retries,
        sleeper=sleeper,
        clock=FakeClock(),
        allow_loopback_http=True,  # the fakes here speak plain HTTP on loopback
    )


def test_the_patch_carries_the_key_the_trace_and_the_body(backend: FakeBackend) -> None:
    outcome = client(backend.base_url, FakeSleeper()).send(report())
    assert (outcome.sent, outcome.attempts, outcome.pending) == (True, 1, False)
    [received] = backend.patches
    assert received.reference == "NRF-000123"
    headers = {k.lower(): v for k, v in received.headers.items()}
    assert headers["x-api-key"] == "backend-test-key"
    assert headers["x-cdp-request-id"] == "trace-42"
    assert headers["content-type"] == "application/json"
    assert received.body == BODY


def test_server_errors_are_retried_with_doubling_delays(backend: FakeBackend) -> None:
    backend.fail_next(500, 2)
    sleeper = FakeSleeper()
    outcome = client(backend.base_url, sleeper).send(report())
    assert (outcome.sent, outcome.attempts) == (True, 3)
    assert sleeper.sleeps == [1.0, 2.0]
    assert len(backend.patches) == 1 and backend.attempts == 3


def test_too_many_requests_is_retried(backend: FakeBackend) -> None:
    # 429 says "later", not "never": two of them, then the third PATCH lands after 1 + 2 s.
    backend.fail_next(429, 2)
    sleeper = FakeSleeper()
    outcome = client(backend.base_url, sleeper).send(report())
    assert (outcome.sent, outcome.attempts, outcome.pending) == (True, 3, False)
    assert sleeper.sleeps == [1.0, 2.0]
    assert backend.attempts == 3 and len(backend.patches) == 1


def test_too_many_requests_to_the_end_leaves_the_report_pending(backend: FakeBackend) -> None:
    backend.fail_next(429, 4)
    outcome = client(backend.base_url, FakeSleeper(), retries=3).send(report())
    assert (outcome.sent, outcome.pending, outcome.attempts) == (False, True, 4)
    assert outcome.error == "backend answered 429"


@pytest.mark.parametrize(
    ("trace", "sent_as"),
    [("a\r\nX-Injected: 1", "a%0D%0AX-Injected:%201"), ("追跡", "%E8%BF%BD%E8%B7%A1")],
)
def test_a_stored_trace_id_that_is_not_header_safe_is_encoded(
    backend: FakeBackend, trace: str, sent_as: str
) -> None:
    # A report saved before the reader encoded trace ids: urllib would raise on CR/LF and
    # on anything beyond Latin-1, and the PATCH would never go.
    outcome = client(backend.base_url, FakeSleeper()).send(report(trace=trace))
    assert outcome.sent
    [received] = backend.patches
    headers = {k.lower(): v for k, v in received.headers.items()}
    assert headers["x-cdp-request-id"] == sent_as
    assert "x-injected" not in headers


def test_a_backend_that_keeps_failing_leaves_the_report_pending(backend: FakeBackend) -> None:
    backend.fail_next(503, 10)
    sleeper = FakeSleeper()
    outcome = client(backend.base_url, sleeper, retries=3).send(report())
    # 1 try + 3 retries, delays 1, 2, 4 s between them.
    assert (outcome.sent, outcome.pending, outcome.attempts) == (False, True, 4)
    assert sleeper.sleeps == [1.0, 2.0, 4.0]
    assert outcome.error == "backend answered 503"


def test_a_body_the_schema_refuses_gets_a_final_400(backend: FakeBackend) -> None:
    # An old-contract body (levy as min/max, units "kg/year"): the backend's schema refuses it,
    # and retrying never makes it acceptable, so one attempt, final, nothing stored.
    old = copy.deepcopy(BODY)
    old["edps"][0]["levyGbp"] = {"min": 120.5, "max": 120.5}
    sleeper = FakeSleeper()
    outcome = client(backend.base_url, sleeper).send(report(old))
    assert (outcome.sent, outcome.pending, outcome.attempts) == (False, False, 1)
    assert outcome.error == "backend answered 400"
    assert sleeper.sleeps == [] and backend.attempts == 1
    assert [r.body for r in backend.refused] == [old]
    assert backend.patches == [] and backend.emails == []


def test_a_wrong_key_is_final(backend: FakeBackend) -> None:
    outcome = client(backend.base_url, FakeSleeper(), key="wrong").send(report())
    assert (outcome.sent, outcome.pending) == (False, False)
    assert backend.patches == []


def test_a_timeout_is_retried(backend: FakeBackend) -> None:
    backend.hang_next(1)
    sleeper = FakeSleeper()
    outcome = client(backend.base_url, sleeper, timeout=0.5).send(report())
    assert (outcome.sent, outcome.attempts) == (True, 2)
    assert sleeper.sleeps == [1.0]


def test_nothing_listening_is_retryable() -> None:
    outcome = client(f"http://127.0.0.1:{free_port()}", FakeSleeper(), retries=1).send(report())
    assert (outcome.sent, outcome.pending, outcome.attempts) == (False, True, 2)


def test_whether_it_arrived_is_never_asked_of_the_backend(backend: FakeBackend) -> None:
    # Defra's GET answers 200 {accessStatus, quote: null} without a user's token: it cannot
    # tell. So nothing is asked, and the stored body is sent again (an identical PATCH
    # changes nothing at the backend and sends no email).
    results = client(backend.base_url, FakeSleeper())
    assert results.sent_before(report()) is False
    results.send(report())
    assert results.sent_before(report()) is False
    assert backend.gets == []
    _, answer, _ = http_get(f"{backend.base_url}/quotes/NRF-000123")
    assert answer == {"accessStatus": "invalid", "quote": None}
    _, unknown, _ = http_get(f"{backend.base_url}/quotes/NRF-999999")
    assert unknown == {"accessStatus": "not_found", "quote": None}


def test_an_identical_patch_sends_no_email_and_a_changed_one_does(backend: FakeBackend) -> None:
    backend.create_quote("NRF-000123", ["Norfolk EDP"])  # the placeholder, made at creation
    results = client(backend.base_url, FakeSleeper())
    assert results.send(report()).sent
    assert results.send(report()).sent  # the same bytes again
    assert len(backend.emails) == 1
    assert backend.rows("NRF-000123") == [("Norfolk EDP", BODY["edps"][0])]  # claimed
    changed = copy.deepcopy(BODY)
    changed["edps"][0]["levyGbp"]["amountInflationAdjusted"] = 27552.5
    assert results.send(report(changed)).sent
    assert len(backend.emails) == 2  # a second, different quote in the applicant's inbox


def test_another_spelling_of_the_edp_leaves_the_placeholder_and_adds_a_row(
    backend: FakeBackend,
) -> None:
    backend.create_quote("NRF-000123", ["norfolk EDP"])
    client(backend.base_url, FakeSleeper()).send(report())
    assert [name for name, _ in backend.rows("NRF-000123")] == ["norfolk EDP", "Norfolk EDP"]
    assert backend.rows("NRF-000123")[0][1] is None  # the placeholder, never claimed


class Redirecting(LoopbackServer):
    """Answers every request with a redirect to ``target``."""

    def __init__(self, target: str, status: int) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_PATCH(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(status)
                self.send_header("Location", f"{target}{self.path}")
                self.send_header("Content-Length", "0")
                self.end_headers()

        super().__init__(Handler)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_a_failure_and_never_followed(backend: FakeBackend, status: int) -> None:
    # The key must never go to the host a redirect names: nothing reaches it, and the failure
    # is final (a redirect does not cure itself).
    redirecting = Redirecting(backend.base_url, status).start()
    try:
        sleeper = FakeSleeper()
        outcome = client(redirecting.base_url, sleeper).send(report())
    finally:
        redirecting.stop()
    assert (outcome.sent, outcome.pending, outcome.attempts) == (False, False, 1)
    assert outcome.error == f"backend answered {status} (a redirect, not followed)"
    assert backend.attempts == 0 and backend.gets == [] and sleeper.sleeps == []


@pytest.mark.parametrize(
    ("url", "allow"),
    [
        ("http://backend.example", True),  # plain HTTP off loopback: never
        ("http://127.0.0.1:9", False),  # loopback too, unless asked for outright
        ("ftp://backend.example", True),
    ],
)
def test_the_key_goes_over_https_only(url: str, allow: bool) -> None:
    with pytest.raises(ValueError, match="https://"):
        HttpBackendResults(
            url,
            "k",
            timeout=1,
            max_retries=0,
            sleeper=FakeSleeper(),
            clock=FakeClock(),
            allow_loopback_http=allow,
        )
