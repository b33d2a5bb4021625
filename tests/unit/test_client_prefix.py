"""Rate limits count an IPv6 client by its /64 and an IPv4-mapped address as its IPv4 one."""

from __future__ import annotations

from nrf.adapters.http_server.gate_types import Head
from nrf.adapters.http_server.throttle import RateLimiter
from nrf.domain.client_prefix import client_prefix
from nrf.domain.rate_limit import Rate
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.throttle import api_throttle


def test_ipv4_is_counted_whole_and_ipv6_by_its_64() -> None:
    assert client_prefix("203.0.113.9") == "203.0.113.9"
    assert client_prefix("203.0.113.10") == "203.0.113.10"
    # Two addresses of 2001:db8:1:2::/64, first and last, in either case: one client.
    assert client_prefix("2001:db8:1:2::5") == "2001:db8:1:2::/64"
    assert client_prefix("2001:DB8:1:2:FFFF:FFFF:FFFF:FFFF") == "2001:db8:1:2::/64"
    assert client_prefix("2001:db8:1:3::5") == "2001:db8:1:3::/64"  # the next /64: another
    assert client_prefix("fe80::1%eth0") == "fe80::/64"  # a zone names no other client


def test_an_ipv4_mapped_address_is_its_ipv4_address() -> None:
    # A dual-stack socket reports an IPv4 peer so: it must share the IPv4 address's bucket.
    assert client_prefix("::ffff:198.51.100.7") == "198.51.100.7"
    assert client_prefix("::ffff:c633:6407") == "198.51.100.7"


def test_text_that_is_no_address_is_counted_as_given() -> None:
    assert client_prefix("unknown") == "unknown"
    assert client_prefix("") == ""


class Clock:
    def __call__(self) -> float:
        return 1000.0  # no token comes back during the test


def _head(client: str) -> Head:
    return Head(method="GET", path="/openapi.json", headers={}, client=client)


def test_the_api_gives_one_64_one_bucket_and_two_64s_two() -> None:
    throttle = api_throttle(
        ApiKeys(["k" * 16]),
        RateLimiter(Rate(per_second=1.0, burst=2), clock=Clock()),
        RateLimiter(Rate(per_second=1.0, burst=2), clock=Clock()),
    )
    # Two addresses of one /64 spend one bucket of 2: the third request, from a third
    # address of it, is refused.
    assert throttle(_head("2001:db8:1:2::1")) is None
    assert throttle(_head("2001:db8:1:2::2")) is None
    refused = throttle(_head("2001:db8:1:2:aaaa::3"))
    assert refused is not None and refused.status == 429
    # Another /64 has its own bucket.
    assert throttle(_head("2001:db8:1:3::1")) is None
    # An IPv4 peer seen through a dual-stack socket shares its IPv4 address's bucket.
    assert throttle(_head("198.51.100.7")) is None
    assert throttle(_head("::ffff:198.51.100.7")) is None
    mapped = throttle(_head("198.51.100.7"))
    assert mapped is not None and mapped.status == 429
