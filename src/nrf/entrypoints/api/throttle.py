"""The API's rate limits: per client address and per valid key, the probes exempt.

A client past its bucket gets 429 with ``Retry-After`` before its key is checked or a byte of
body read (as API Gateway and GOV.UK Notify answer), so a flood of keyless or wrong-key
requests costs a refusal each. ``/health`` and ``/ready`` are never limited: the load balancer
and ECS ask them, and a probe refused would take a serving task out. Behind the load balancer
every connection comes from the balancer, so with ``trust_forwarded_for`` the client is the
last address of ``X-Forwarded-For``, the one the balancer itself saw (earlier ones are the
client's own word). An IPv6 client is counted by its /64, one allocation (client_prefix.py).
"""

from __future__ import annotations

from nrf.adapters.http_server.gate_types import Answer, Head, Throttle, problem
from nrf.adapters.http_server.throttle import RateLimiter
from nrf.domain.client_prefix import client_prefix
from nrf.entrypoints.api.auth import HEADER, ApiKeys

EXEMPT = frozenset({"/health", "/ready"})


def client_address(head: Head, trust_forwarded_for: bool) -> str:
    """Whom a request comes from, as the limits count it."""
    if trust_forwarded_for:
        forwarded = head.headers.get("x-forwarded-for", "").rpartition(",")[2].strip()
        if forwarded:
            return forwarded[:64]
    return head.client


def too_many(who: str, seconds: int) -> Answer:
    detail = f"too many requests from this {who}: try again in {seconds} s"
    return problem(429, "rate_limited", detail, (("retry-after", str(seconds)),))


def api_throttle(
    keys: ApiKeys,
    clients: RateLimiter,
    by_key: RateLimiter,
    *,
    trust_forwarded_for: bool = False,
) -> Throttle:
    """The gate's throttle: the client's bucket first, then the key's when the key is valid.

    The limiters are built by the API's root (roots/api.py), one of each per process."""

    def throttle(head: Head) -> Answer | None:
        if head.path in EXEMPT:
            return None
        who = client_prefix(client_address(head, trust_forwarded_for))
        wait = clients.retry_after(f"client:{who}")
        if wait is not None:
            return too_many("client", wait)
        given = head.headers.get(HEADER)
        number = keys.which(given) if given else None
        if number is not None:
            wait = by_key.retry_after(f"key:{number}")
            if wait is not None:
                return too_many("API key", wait)
        return None

    return throttle
