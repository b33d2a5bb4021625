"""HttpBackendResults against a fake Defra backend over real loopback HTTP, failures included."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from fakes import FakeClock, FakeSleeper
from nrf.adapters.backend.http_backend_results import HttpBackendResults
from nrf.domain.jobs import Notification, NotificationKind
from nrf.domain.result_port import BACKEND_RECIPIENT, BODY_FIELD, TRACE_FIELD
from support.fake_backend import FakeBackend, running_fake_backend
from support.moto_server import free_port

BODY = {
    "edps": [
        {
            "edpId": "32",
            "edpName": "The Broads SAC",
            "edpType": "NUTRIENT",
            "impact": {
                "nitrogenTotal": {"amount": 1.5, "unit": "kg/year"},
                "phosphorusTotal": {"amount": 0.25, "unit": "kg/year"},
            },
            "levyGbp": {"min": 120.5, "max": 120.5},
        }
    ]
}


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
        base_url, key, timeout=timeout, max_retries=retries, sleeper=sleeper, clock=FakeClock()
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


def test_a_refused_body_is_final(backend: FakeBackend) -> None:
    backend.fail_next(400)
    outcome = client(backend.base_url, FakeSleeper()).send(report())
    assert (outcome.sent, outcome.pending, outcome.attempts) == (False, False, 1)


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


def test_asking_first_reads_the_quote_back(backend: FakeBackend) -> None:
    results = client(backend.base_url, FakeSleeper())
    assert results.sent_before(report()) is False  # 404: never received
    results.send(report())
    assert results.sent_before(report()) is True  # the same EDPs are there
    other = {"edps": [{**BODY["edps"][0], "levyGbp": {"min": 1.0, "max": 1.0}}]}
    assert results.sent_before(report(other)) is False  # other figures: send ours
    assert backend.gets == ["NRF-000123"] * 3
