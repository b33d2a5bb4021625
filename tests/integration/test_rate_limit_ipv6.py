"""Per-client rate limits over IPv6 sockets: one /64 is one client, another /64 another.

Issue 31: each IPv6 address had its own bucket, so a client holding a /64 (one ordinary home
or cloud allocation) could take a fresh bucket per request. `nrf serve` listens on ::1 here;
the loopback holds one address, so the other addresses of a /64 arrive as the balancer gives
them, in ``X-Forwarded-For`` (the last entry, with NRF_API_TRUST_FORWARDED_FOR).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from support.api_server import Server, running_server, serve_env
from support.raw_http import log_events


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not _has_ipv6_loopback(), reason="this machine has no IPv6 loopback (::1) to listen on"
)


@pytest.fixture(scope="module")
def on_ipv6(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A burst of 3 per client and a token per 100 s, so none comes back during a test."""
    folder = tmp_path_factory.mktemp("ipv6")
    env = serve_env(
        folder / "results",
        NRF_API_RATE_PER_CLIENT="0.01",
        NRF_API_BURST_PER_CLIENT="3",
        NRF_API_TRUST_FORWARDED_FOR="true",
    )
    with running_server(env, folder / "serve.log", host="::1") as running:
        yield running


def _status(server: Server, forwarded: str | None = None) -> int:
    headers = {"X-Forwarded-For": f"6.6.6.6, {forwarded}"} if forwarded else {}
    return server.request("GET", "/openapi.json", headers=headers).status


def test_addresses_of_one_64_share_a_bucket_and_another_64_has_its_own(on_ipv6: Server) -> None:
    # Three addresses of 2001:db8:1:2::/64 spend its burst of 3; a fourth of it is refused.
    first = [_status(on_ipv6, f"2001:db8:1:2::{n}") for n in (1, 2, 3)]
    assert first == [200, 200, 200]
    assert _status(on_ipv6, "2001:db8:1:2:ffff:ffff:ffff:fffe") == 429
    # The next /64 is another client.
    assert _status(on_ipv6, "2001:db8:1:3::1") == 200


def test_an_ipv4_mapped_address_shares_the_ipv4_addresses_bucket(on_ipv6: Server) -> None:
    spent = [_status(on_ipv6, "::ffff:198.51.100.7") for _ in range(3)]
    assert spent == [200, 200, 200]
    assert _status(on_ipv6, "198.51.100.7") == 429


def test_a_peer_connected_over_ipv6_is_limited_by_its_own_address(on_ipv6: Server) -> None:
    # No X-Forwarded-For: the socket's peer, ::1, is the client; its burst of 3, then 429.
    assert [_status(on_ipv6) for _ in range(4)] == [200, 200, 200, 429]
    deadline = time.monotonic() + 30
    while not [e for e in log_events(on_ipv6.log) if _refused_for(e) == "::1"]:
        assert time.monotonic() < deadline, "no refusal logged with the IPv6 peer's address"
        time.sleep(0.1)


def _refused_for(event: dict) -> str | None:
    """The client a rate-limit refusal is logged for (its own address, not its /64)."""
    if (event.get("event"), event.get("code")) == ("request_refused", "rate_limited"):
        return str(event.get("client"))
    return None
