"""The gate's refusals by the head alone: nothing of the body is read, every answer is whole."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from nrf.adapters.http_server.gate import Gate
from support.asgi_calls import LIMITS, App, run, scope, status_and_doc


@pytest.mark.parametrize(
    ("method", "headers", "code"),
    [
        ("POST", {"content-length": "5", "transfer-encoding": "chunked"}, "ambiguous_framing"),
        ("GET", {"content-length": "5", "transfer-encoding": "chunked"}, "ambiguous_framing"),
        ("GET", {"content-length": "5"}, "body_not_allowed"),
        ("HEAD", {"transfer-encoding": "chunked"}, "body_not_allowed"),
        ("OPTIONS", {"content-length": "52428800"}, "body_not_allowed"),
        ("GET", {"upgrade": "websocket", "connection": "Upgrade"}, "websocket_not_supported"),
    ],
    ids=["smuggling-post", "smuggling-get", "get-body", "head-chunked", "options", "websocket"],
)
def test_heads_nobody_needs_are_400_before_a_byte_is_read(
    method: str, headers: dict[str, str], code: str
) -> None:
    app = App()
    sent, calls = run(Gate(app, LIMITS), [b"x"], scope(method, headers), end=False)
    status, answer_headers, body = status_and_doc(sent)
    assert (status, json.loads(body)["code"], calls, app.bodies) == (400, code, 0, [])
    assert answer_headers["connection"] == "close"


def test_a_read_with_an_empty_length_is_served() -> None:
    app = App()
    sent, _ = run(Gate(app, LIMITS), [b""], scope("GET", {"content-length": "0"}))
    assert sent[0]["status"] == 200 and app.bodies == [b""]


def test_every_answer_carries_the_security_headers_app_and_refusal_alike() -> None:
    served = status_and_doc(run(Gate(App(), LIMITS), [b""], scope("GET"))[0])[1]
    refused = status_and_doc(run(Gate(App(), LIMITS), [b"x" * 11], scope())[0])[1]
    for headers in (served, refused):
        assert headers["cache-control"] == "no-store"
        assert headers["strict-transport-security"].startswith("max-age=31536000")
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-content-type-options"] == "nosniff"


class Failing(App):
    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        raise RuntimeError("cannot schedule new futures after shutdown")


def test_an_app_that_fails_is_a_500_problem_document_with_headers() -> None:
    sent, _ = run(Gate(Failing(), LIMITS), [b""], scope("GET"))
    status, headers, body = status_and_doc(sent)
    assert (status, json.loads(body)["code"]) == (500, "internal_error")
    assert headers["content-type"] == "application/problem+json"
    assert headers["cache-control"] == "no-store"


def test_a_request_cut_by_the_process_being_replaced_is_told_503_and_when_to_retry() -> None:
    """hypercorn cancels what is still running when the graceful stop ends: it sent an empty
    500; the gate now answers before the cancellation goes on."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()  # the body never ends
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def main() -> None:
        task = asyncio.create_task(Gate(App(), LIMITS)(scope(), receive, send))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    status, headers, body = status_and_doc(sent)
    assert (status, json.loads(body)["code"]) == (503, "server_restarting")
    assert headers["retry-after"] == "5" and headers["connection"] == "close"
