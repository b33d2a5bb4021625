"""One JSON access-log line per request, with a request id the client also gets back.

A client's ``X-Request-Id`` is kept when it is short and plain (so a front end can trace its own
calls); anything else is replaced by a fresh one. Headers and bodies are never logged: the API
key travels in a header.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

import falcon

log = logging.getLogger("nrf.api.access")
_PLAIN = re.compile(r"[A-Za-z0-9._-]{1,64}")


class AccessLog:
    """Falcon middleware: sets ``req.context.request_id`` first, logs after the response."""

    def __init__(
        self,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._new_id, self._clock = new_id, clock

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        given = req.get_header("X-Request-Id") or ""
        req.context.request_id = given if _PLAIN.fullmatch(given) else self._new_id()
        req.context.started = self._clock()
        resp.set_header("X-Request-Id", req.context.request_id)

    def process_response(
        self, req: falcon.Request, resp: falcon.Response, resource: object, ok: bool
    ) -> None:
        started = getattr(req.context, "started", None)
        millis = None if started is None else round((self._clock() - started) * 1000, 2)
        log.info(
            "request",
            extra={
                "request_id": getattr(req.context, "request_id", None),
                "method": req.method,
                "path": req.path,
                "status": int(str(resp.status)[:3]),
                "duration_ms": millis,
                "key_number": getattr(req.context, "key_number", None),
                "content_type": resp.content_type,
            },
        )
