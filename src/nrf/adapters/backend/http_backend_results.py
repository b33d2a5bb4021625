"""HttpBackendResults: `PATCH {BACKEND_BASE_URL}/quotes/{reference}`, as Defra's assessor does.

Headers ``x-api-key`` and ``x-cdp-request-id`` (the job's trace id). 5xx, 429, timeouts and
refused connections are retried with doubling delays (1, 2, 4 s …) up to
``BACKEND_CALLBACK_MAX_RETRIES`` more times, then left pending for the job's next receive;
any other 4xx is final (retrying never makes a refused body acceptable).

Asked whether it already has a result (after a crash around the PATCH), it reads the quote
back with ``GET /quotes/{reference}``: the same EDPs mean delivered. Where the backend cannot
tell (no such route, or the quote shows other figures) the answer is "not yet": a PATCH sets
the quote to the same figures again, so sending it twice does no harm, while not sending it
would leave the quote without a result.
"""

from __future__ import annotations

import json
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
    ) -> None:
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
        trace = notification.personalisation.get(TRACE_FIELD, "")
        try:
            answer = self._call("GET", notification.reference, None, trace, read=True)
        except NotificationFailed as exc:
            if exc.retryable:
                raise
            return False  # not found, or no such route: PATCH again (it is idempotent)
        try:
            held = json.loads(answer or "{}").get("edps")
            ours = json.loads(notification.personalisation.get(BODY_FIELD, "{}")).get("edps")
        except (ValueError, AttributeError):
            return False
        return held is not None and held == ours

    def _call(
        self, method: str, reference: str, body: bytes | None, trace: str, read: bool = False
    ) -> str | None:
        url = f"{self._base}/quotes/{urllib.parse.quote(reference, safe='')}"
        headers = {"x-api-key": self._key, "Accept": "application/json"}
        if trace:
            # Made safe when the message was read; again here for reports stored before that.
            headers["x-cdp-request-id"] = header_safe(trace)
        if body is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                data = response.read()
                return data.decode("utf-8", "replace") if read else str(response.status)
        except urllib.error.HTTPError as exc:
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
