"""`nrf serve`'s own settings from the environment; the rest are the worker's (same names)."""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from nrf.adapters.environment.settings import ConfigError
from nrf.adapters.http_server.limits import MIB, HttpLimits
from nrf.domain.rate_limit import Rate

# Per process, far above what one client needs of a two-core task (about 1,000 quotes/s in
# all, docs/benchmark.md): Defra's backend sends every applicant's boundary from one address,
# so a limit a quote client could meet would throttle the service itself. They stop one client
# taking several tasks' worth; a deployment that faces the public sets lower ones.
CLIENT_RATE = Rate(per_second=1500.0, burst=3000)
KEY_RATE = Rate(per_second=1500.0, burst=3000)
# A process's start (imports, the bundle opened and hashed) costs 0.8-3 s of CPU; replaced
# every 1,000 requests, that was 0.8-3 ms a quote, more than the quote itself (0.6-1 ms), and
# cut the API from ~1,000 to ~200-300 quotes/s (docs/benchmark.md). At 100,000 it is
# 0.03 ms; a process whose memory grows is still replaced at NRF_API_MAX_RSS_MB.
DEFAULT_MAX_REQUESTS = 100_000


@frozen(kw_only=True)
class ApiSettings:
    """Keys, workers and threads; ``keys`` never appear in ``repr``."""

    keys: tuple[str, ...] = ()
    allow_anonymous: bool = False
    workers: int = 2
    threads: int = 4
    body_timeout: float = 30.0
    send_timeout: float = 60.0
    max_requests: int = DEFAULT_MAX_REQUESTS
    max_rss_mb: int = 1024
    # Token buckets (throttle.py): requests a second on average and at once, per process.
    client_rate: Rate = CLIENT_RATE
    key_rate: Rate = KEY_RATE
    trust_forwarded_for: bool = False

    def __repr__(self) -> str:
        return f"ApiSettings(keys={len(self.keys)} set, allow_anonymous={self.allow_anonymous})"


def _number(
    environ: Mapping[str, str],
    name: str,
    default: float,
    low: float,
    high: float,
    problems: list[str],
) -> float:
    raw = (environ.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        problems.append(f"{name}={raw!r}: must be a number from {low:g} to {high:g}")
        return default
    return value


def _flag(environ: Mapping[str, str], name: str, problems: list[str]) -> bool:
    raw = environ.get(name, "").strip().lower()
    if raw not in ("", "true", "false", "1", "0", "yes", "no"):
        problems.append(f"{name} must be true or false")
    return raw in ("true", "1", "yes")


def _rate(environ: Mapping[str, str], name: str, default: Rate, problems: list[str]) -> Rate:
    """``NRF_API_RATE_PER_<name>`` (requests a second, 0: no limit) and ``NRF_API_BURST_...``."""
    per_second = _number(
        environ, f"NRF_API_RATE_PER_{name}", default.per_second, 0, 10**6, problems
    )
    burst = int(_number(environ, f"NRF_API_BURST_PER_{name}", default.burst, 1, 10**6, problems))
    return Rate(per_second=per_second, burst=burst)


def load_api_settings(environ: Mapping[str, str]) -> ApiSettings:
    """Parse and check; refuse (ConfigError) to serve with no key unless anonymity is asked for."""
    problems: list[str] = []
    keys = tuple(k.strip() for k in environ.get("NRF_API_KEYS", "").split(",") if k.strip())
    anonymous = _flag(environ, "NRF_API_ALLOW_ANONYMOUS", problems)
    if not keys and not anonymous:
        problems.append(
            "NRF_API_KEYS is empty: set one or more comma-separated keys, or "
            "NRF_API_ALLOW_ANONYMOUS=true to serve without keys (a demo only)"
        )
    short = [n for n, k in enumerate(keys, 1) if len(k) < 16]
    if short:
        problems.append(f"NRF_API_KEYS: key(s) {short} are shorter than 16 characters")
    settings = ApiSettings(
        keys=keys,
        allow_anonymous=anonymous,
        workers=int(_number(environ, "NRF_API_WORKERS", 2, 1, 64, problems)),
        threads=int(_number(environ, "NRF_API_THREADS", 4, 1, 256, problems)),
        body_timeout=_number(environ, "NRF_API_BODY_TIMEOUT_SECONDS", 30.0, 0.1, 3600, problems),
        send_timeout=_number(environ, "NRF_API_SEND_TIMEOUT_SECONDS", 60.0, 0.1, 3600, problems),
        max_requests=int(
            _number(environ, "NRF_API_MAX_REQUESTS", DEFAULT_MAX_REQUESTS, 1, 10**9, problems)
        ),
        max_rss_mb=int(_number(environ, "NRF_API_MAX_RSS_MB", 1024, 64, 10**6, problems)),
        client_rate=_rate(environ, "CLIENT", CLIENT_RATE, problems),
        key_rate=_rate(environ, "KEY", KEY_RATE, problems),
        trust_forwarded_for=_flag(environ, "NRF_API_TRUST_FORWARDED_FOR", problems),
    )
    if problems:
        raise ConfigError(problems)
    return settings


def http_limits(api: ApiSettings, max_file_bytes: int) -> HttpLimits:
    """The API server's connection limits: HttpLimits' defaults, with the settings above.

    The body limit is the input file limit, so a body one byte over is refused as it arrives.
    """
    return HttpLimits(
        body_seconds=api.body_timeout,
        send_seconds=api.send_timeout,
        max_body_bytes=max_file_bytes,
        work_threads=api.threads,
        max_requests=api.max_requests,
        max_requests_jitter=max(1, api.max_requests // 10),
        max_rss_bytes=api.max_rss_mb * MIB,
    )
