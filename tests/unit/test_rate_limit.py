"""Token buckets on an injected clock: a burst at once, then the rate; Retry-After in seconds."""

from __future__ import annotations

import json

from nrf.adapters.http_server.gate_types import Head
from nrf.adapters.http_server.throttle import RateLimiter
from nrf.domain.rate_limit import Bucket, Rate, take
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.throttle import api_throttle, client_address

KEY = "k" * 16


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_new_client_has_its_burst_then_waits_for_the_rate() -> None:
    rate = Rate(per_second=2.0, burst=3)
    bucket: Bucket | None = None
    waits = []
    for _ in range(4):
        bucket, wait = take(bucket, rate, now=10.0)
        waits.append(wait)
    # 3 tokens at once; the 4th needs one token at 2 a second: 0.5 s.
    assert waits == [0.0, 0.0, 0.0, 0.5]
    assert bucket is not None
    bucket, wait = take(bucket, rate, now=10.5)  # 0.5 s later: one token came
    assert wait == 0.0 and bucket.tokens == 0.0


def test_tokens_never_exceed_the_burst_and_a_clock_stepping_back_adds_none() -> None:
    rate = Rate(per_second=1.0, burst=2)
    bucket, _ = take(None, rate, now=0.0)  # 2 - 1 = 1 left
    bucket, _ = take(bucket, rate, now=3600.0)  # an hour: capped at 2, then 1 spent
    assert bucket.tokens == 1.0
    bucket, _ = take(bucket, rate, now=3600.0)  # 0 left
    bucket, wait = take(bucket, rate, now=0.0)  # back in time: still 0, wait 1 s
    assert (bucket.tokens, wait) == (0.0, 1.0)


def test_the_limiter_rounds_retry_after_up_to_whole_seconds_per_name() -> None:
    clock = Clock()
    limiter = RateLimiter(Rate(per_second=0.25, burst=1), clock=clock)
    assert limiter.retry_after("a") is None
    assert limiter.retry_after("a") == 4  # one token at 0.25 a second: 4 s
    assert limiter.retry_after("b") is None  # another name has its own bucket
    clock.now += 1.5  # 0.375 of a token: 0.625 / 0.25 = 2.5 s, told 3
    assert limiter.retry_after("a") == 3
    clock.now += 2.5
    assert limiter.retry_after("a") is None


def test_the_table_is_bounded_by_dropping_the_bucket_unused_longest() -> None:
    limiter = RateLimiter(Rate(per_second=0.001, burst=1), clock=Clock(), max_clients=2)
    for name in ("a", "b", "a", "c"):  # "b" is the one unused longest when "c" comes
        limiter.retry_after(name)
    assert limiter.retry_after("a") is not None  # kept: still empty
    assert limiter.retry_after("b") is None  # dropped: a full bucket again


def test_zero_per_second_is_no_limit() -> None:
    limiter = RateLimiter(Rate(per_second=0.0, burst=1), clock=Clock())
    assert all(limiter.retry_after("a") is None for _ in range(100))


def head(path: str = "/v1/quotes", key: str | None = None, client: str = "10.0.0.1") -> Head:
    headers = {"x-api-key": key} if key else {}
    return Head(method="POST", path=path, headers=headers, client=client)


def test_the_api_limits_each_client_and_each_valid_key_and_never_the_probes() -> None:
    clock = Clock()
    throttle = api_throttle(
        ApiKeys([KEY]),
        RateLimiter(Rate(per_second=1.0, burst=2), clock=clock),
        RateLimiter(Rate(per_second=1.0, burst=3), clock=clock),
    )
    # Client 10.0.0.1: 2 at once, the third is 429 with Retry-After 1.
    assert [throttle(head()) for _ in range(2)] == [None, None]
    refused = throttle(head())
    assert refused is not None and refused.status == 429
    assert dict(refused.headers)["retry-after"] == "1"
    assert json.loads(refused.body)["code"] == "rate_limited" and refused.code == "rate_limited"
    # The probes are never limited.
    assert all(throttle(head("/health")) is None for _ in range(50))
    assert all(throttle(head("/ready")) is None for _ in range(50))
    # One valid key from three addresses: its bucket of 3 is the limit, not the clients'.
    verdicts = [throttle(head(key=KEY, client=f"10.0.1.{n}")) for n in range(4)]
    assert [v is None for v in verdicts] == [True, True, True, False]
    assert verdicts[3] is not None and "API key" in json.loads(verdicts[3].body)["detail"]
    # A wrong key has no key bucket: only its client's.
    assert throttle(head(key="w" * 16, client="10.0.2.1")) is None


def test_behind_the_balancer_the_client_is_the_last_forwarded_address() -> None:
    xff = {"x-forwarded-for": "6.6.6.6, 203.0.113.9"}
    forwarded = Head(method="GET", path="/", headers=xff, client="10.0.0.2")
    assert client_address(forwarded, trust_forwarded_for=True) == "203.0.113.9"
    assert client_address(forwarded, trust_forwarded_for=False) == "10.0.0.2"
    bare = Head(method="GET", path="/", headers={}, client="10.0.0.2")
    assert client_address(bare, trust_forwarded_for=True) == "10.0.0.2"
