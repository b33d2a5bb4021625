"""HttpBackendResults: `PATCH {BACKEND_BASE_URL}/quotes/{reference}`, as Defra's assessor does.

Headers ``x-api-key`` and ``x-cdp-request-id`` (the job's trace id). 5xx, 429, timeouts and
refused connections are retried with doubling delays (1, 2, 4 s …) up to
``BACKEND_CALLBACK_MAX_RETRIES`` more times, then left pending for the job's next receive;
any other 4xx is final (retrying never makes a refused body acceptable). A redirect is a
failure, never followed: following it would send the key to whatever host it names. Only
``https://`` is spoken, except to a loopback host when a test asks for plain HTTP outright.

The body sent is the one stored with the job before its first attempt, byte for byte, on every
attempt, retry and restart. Whether an earlier attempt already landed is not asked: Defra's
backend answers ``GET /quotes/{reference}`` with 200 ``{accessStatus, quote: null}`` to any
caller without a user's Bearer token, so it cannot tell, and it need not, because it takes an
identical PATCH as no change (no new row, no second email to the applicant).
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from nrf.adapters.notifier.notification_delivery import SendRetryPolicy, deliver, log_outcome
from nrf.domain.jobs import Notification, NotificationFailed, NotificationRecord
from nrf.domain.ports import Clock, Sleeper
from nrf.domain.result_port import BODY_FIELD, TRACE_FIELD
from nrf.domain.trace_id import header_safe

log = logging.getLogger("nrf.backend")

_RETRYABLE = {429} | set(range(500, 600))
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


def url_problem(base_url: str, *, allow_loopback_http: bool) -> str | None:
    """Why ``base_url`` may not carry the backend key, or None: https, or plain http to a
    loopback host when explicitly allowed (tests' local fakes)."""
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and allow_loopback_http and parts.hostname in LOOPBACK_HOSTS:
        return None
    return "BACKEND_BASE_URL must be an https:// URL (the API key travels with every request)"


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: urllib then raises the 3xx as an HTTPError."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class HttpBackendResults:
    """One backend base URL and API key; urllib, so no new dependency."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float,
        max_retries: int,
        sleeper: Sleeper,
        clock: Clock,
        allow_loopback_http: bool = False,
    ) -> None:
        problem = url_problem(base_url, allow_loopback_http=allow_loopback_http)
        if problem is not None:
            raise ValueError(problem)
        self._opener = urllib.request.build_opener(_NoRedirects)
        self._base, self._key, self._timeout = base_url.rstrip("/"), api_key, timeout
        self._policy = SendRetryPolicy(
            max_attempts=max_retries + 1,
            base_delay=1.0,
            max_delay=8.0,
            max_total_seconds=max(60.0, 4 * timeout),
        )
        self._sleeper, self._clock = sleeper, clock

    def send(self, notification: Notification) -> NotificationRecord:
        body = notification.personalisation.get(BODY_FIELD, "").encode()
        trace = notification.personalisation.get(TRACE_FIELD, "")
        record = deliver(
            notification,
            lambda: self._call("PATCH", notification.reference, body, trace),
            policy=self._policy,
            sleeper=self._sleeper,
            clock=self._clock,
            jitter=lambda cap: cap,  # 1, 2, 4 s: as the backend's own client expects
        )
        log_outcome(log, record, notification, "backend")
        return record

    def sent_before(self, notification: Notification) -> bool | None:
        """Never known from here (see the module's docstring): the stored body goes again."""
        return False

    def _call(self, method: str, reference: str, body: bytes, trace: str) -> str:
        url = f"{self._base}/quotes/{urllib.parse.quote(reference, safe='')}"
        headers = {"x-api-key": self._key, "Accept": "application/json"}
        if trace:
            # Made safe when the message was read; again here for reports stored before that.
            headers["x-cdp-request-id"] = header_safe(trace)
        headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                response.read()
                return str(response.status)
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                raise NotificationFailed(
                    f"backend answered {exc.code} (a redirect, not followed)",
                    retryable=False,
                    code="backend_redirect",
                ) from None
            retryable = exc.code in _RETRYABLE
            raise NotificationFailed(
                f"backend answered {exc.code}", retryable=retryable, code=f"backend_{exc.code}"
            ) from None
        except TimeoutError as exc:
            raise NotificationFailed(
                "backend timed out", retryable=True, code="backend_timeout"
            ) from exc
        except (urllib.error.URLError, OSError) as exc:
            raise NotificationFailed(
                f"backend unreachable: {_reason(exc)}", retryable=True, code="backend_unreachable"
            ) from exc


def _reason(exc: Any) -> str:
    return str(getattr(exc, "reason", exc))[:200]
