"""The gate: bodies counted as they arrive, deadlines, early refusals, pools and HTML headers."""

from __future__ import annotations

import json
from typing import Literal

from nrf.adapters.http_server.gate import (
    MORE,
    Answer,
    Gate,
    Head,
    NeedsPrefix,
)
from nrf.adapters.http_server.limits import HttpLimits
from support.asgi_calls import LIMITS, App, run, scope, status_and_doc


def test_the_body_is_counted_as_it_arrives_and_reading_stops_at_the_first_byte_over() -> None:
    app = App()
    # 4 + 4 = 8 <= 10; 8 + 4 = 12 > 10: refused after the third chunk, the fourth never read.
    sent, calls = run(Gate(app, LIMITS), [b"aaaa", b"bbbb", b"cccc", b"dddd"], scope(), end=False)
    status, headers, body = status_and_doc(sent)
    assert (status, json.loads(body)["code"], calls) == (413, "body_too_large", 3)
    assert headers["connection"] == "close" and app.bodies == []


def test_a_body_of_exactly_the_limit_reaches_the_app_with_its_length() -> None:
    app = App()
    sent, _ = run(Gate(app, LIMITS), [b"aaaa", b"bbbb", b"cc"], scope())  # 4 + 4 + 2 = 10
    assert sent[0]["status"] == 200 and app.bodies == [b"aaaabbbbcc"]
    assert app.environs[0]["CONTENT_LENGTH"] == "10"


def test_a_declared_length_over_the_limit_is_refused_before_any_read() -> None:
    sent, calls = run(Gate(App(), LIMITS), [b"x"], scope(headers={"content-length": "11"}))
    assert (sent[0]["status"], calls) == (413, 0)


def test_a_body_that_stops_arriving_is_408_at_the_deadline() -> None:
    limits = HttpLimits(max_body_bytes=10, body_seconds=0.05)
    sent, calls = run(Gate(App(), limits), [b"ab"], scope(), end=False)
    status, _, body = status_and_doc(sent)
    assert (status, json.loads(body)["code"], calls) == (408, "body_timeout", 2)


def test_an_admission_refusal_reads_no_body() -> None:
    refusal = Answer(
        status=401, headers=(("content-type", "application/problem+json"),), body=b"{}"
    )
    seen: list[Head] = []

    def admit(head: Head) -> Answer:
        seen.append(head)
        return refusal

    sent, calls = run(Gate(App(), LIMITS, admit), [b"x"], scope(headers={"X-Api-Key": "k"}))
    assert (sent[0]["status"], calls) == (401, 0)
    assert seen[0].headers["x-api-key"] == "k"  # names lower-cased


def test_a_prefix_check_sees_the_body_grow_and_may_admit_before_the_window_is_full() -> None:
    looked: list[tuple[bytes, bool]] = []

    def check(prefix: bytes, final: bool) -> Answer | Literal["more"] | None:
        looked.append((prefix, final))
        return None if b"key" in prefix else MORE

    app = App()
    gate = Gate(app, LIMITS, lambda head: NeedsPrefix(6, check))
    sent, _ = run(gate, [b"k", b"ey", b"1234"], scope())
    # After "k" (1 byte) more is needed; "key" (3) admits; the rest is read unchecked.
    assert looked == [(b"k", False), (b"key", False)]
    assert sent[0]["status"] == 200 and app.bodies == [b"key1234"]


def test_a_prefix_check_must_decide_once_the_window_is_full() -> None:
    looked: list[bool] = []

    def check(prefix: bytes, final: bool) -> Answer | Literal["more"] | None:
        looked.append(final)
        return Answer(status=401, headers=(), body=b"") if final else MORE

    gate = Gate(App(), LIMITS, lambda head: NeedsPrefix(4, check))
    sent, calls = run(gate, [b"ab", b"cd", b"ef"], scope(), end=False)
    # 2 bytes: not final; 4 bytes fill the window of 4: final, refused; "ef" is never read.
    assert (looked, sent[0]["status"], calls) == ([False, True], 401, 2)


def test_reads_and_posts_run_in_separate_pools() -> None:
    app = App()
    gate = Gate(app, LIMITS)
    run(gate, [b""], scope("GET"))
    run(gate, [b""], scope("POST"))
    assert [name.split("_")[0] for name in app.threads] == ["nrf-read", "nrf-work"]


def test_html_answers_get_the_anti_framing_headers_and_every_answer_nosniff() -> None:
    _, html_headers, _ = status_and_doc(run(Gate(App("text/html"), LIMITS), [b""], scope())[0])
    _, json_headers, _ = status_and_doc(run(Gate(App(), LIMITS), [b""], scope())[0])
    assert html_headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in html_headers["content-security-policy"]
    assert "content-security-policy" not in json_headers
    assert json_headers["x-content-type-options"] == "nosniff"


def test_headers_over_the_limit_are_431_whatever_the_parser_let_through() -> None:
    # 1024-byte limit: one header of 1,100 bytes is over it on its own.
    sent, calls = run(Gate(App(), LIMITS), [b""], scope("GET", {"x-big": "b" * 1100}))
    status, _, body = status_and_doc(sent)
    assert (status, json.loads(body)["code"], calls) == (431, "headers_too_large", 0)


def test_a_process_is_worn_only_over_its_limit_and_after_serving() -> None:
    from nrf.adapters.http_server.worker import worn

    mib, quota = 1024 * 1024, 1000
    assert worn(1025 * mib, 1024 * mib, served=1, quota=quota) == "rss"
    assert worn(1024 * mib, 1024 * mib, served=1, quota=quota) is None  # at the limit
    assert worn(2048 * mib, 1024 * mib, served=0, quota=quota) is None  # fresh
    assert worn(None, 1024 * mib, served=5, quota=quota) is None  # no /proc: never
    # Its quota of requests answered: due whatever its memory.
    assert worn(10 * mib, 1024 * mib, served=999, quota=quota) is None
    assert worn(10 * mib, 1024 * mib, served=1000, quota=quota) == "requests"


def test_the_gate_counts_only_requests_the_app_answered() -> None:
    gate = Gate(App(), LIMITS)
    run(gate, [b"ok"], scope())
    run(gate, [b"x" * 11], scope())  # 11 > 10: refused by the gate, not served
    assert gate.served == 1
