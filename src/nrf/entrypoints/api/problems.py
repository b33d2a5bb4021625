"""Every error as ``application/problem+json`` (RFC 9457) with the CLI's stable codes.

One table maps a code to its HTTP status, so a code means the same status on every route;
anything unexpected becomes a 500 whose body names only the request id, never a traceback.
Messages are the CLI's, with its flags put in the API's words (wording.py).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import falcon

from nrf.domain.errors import InvalidInput, NrfError, Problem
from nrf.entrypoints.api.wording import for_api

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("nrf.api")

# Limits: the request is too big for the service, whatever its content (413).
TOO_LARGE = frozenset(
    {
        "body_too_large",
        "file_too_large",
        "too_many_features",
        "too_many_vertices",
        "geojson_too_complex",
        "zip_too_many_files",
        "zip_entry_too_large",
        "zip_total_too_large",
        "json_too_deep",
    }
)
# The request itself is malformed, before any boundary is judged (400).
MALFORMED = frozenset(
    {
        "bad_request",
        "unreadable_file",
        "not_json",
        "unknown_rule_set",
        "missing_file",
        "incomplete_body",
        "bad_quote_date",
        "bad_crs",
    }
)
STATUS = {
    "unauthorized": 401,
    "not_found": 404,
    "job_not_found": 404,
    "method_not_allowed": 405,
    "not_acceptable": 406,
    "body_timeout": 408,
    # Refused by the server before the app (http_server/): same codes, same statuses.
    "headers_too_large": 431,
    "unsupported_transfer_encoding": 501,
    "unsupported_media_type": 415,
    "unsupported_file_type": 415,
    "broken_bundle": 503,
    "not_ready": 503,
    "result_store_unavailable": 503,
    "input_store_unavailable": 503,
    "internal_error": 500,
    **{code: 413 for code in TOO_LARGE},
    **{code: 400 for code in MALFORMED},
}


class ApiProblem(Exception):
    """An error answered as a problem document; ``problems`` lists every input problem."""

    def __init__(
        self, code: str, detail: str, problems: Sequence[Problem] = (), status: int | None = None
    ) -> None:
        super().__init__(f"{code}: {detail}")
        self.code, self.detail, self.problems = code, detail, tuple(problems)
        self.status = status or STATUS.get(code, 422)


def from_error(error: NrfError) -> ApiProblem:
    """The problem for a domain error: every problem kept, the worst one sets the status."""
    if isinstance(error, InvalidInput):
        codes = {p.code for p in error.problems}
        statuses = [STATUS.get(code, 422) for code in codes] or [422]
        # 413 beats 415 beats 422 beats 400: a limit is the reason the rest was not judged.
        rank = {413: 4, 415: 3, 422: 2, 400: 1}
        status = max(statuses, key=lambda s: rank.get(s, 0))
        return ApiProblem(error.code, error.message, error.problems, status)
    return ApiProblem(error.code, error.message)


def document(problem: ApiProblem, request_id: str | None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "type": f"urn:nrf:problem:{problem.code}",
        "title": falcon.code_to_http_status(problem.status)[4:],
        "status": problem.status,
        "detail": for_api(problem.detail),
        "code": problem.code,
    }
    if problem.problems:
        doc["problems"] = [
            {
                "code": p.code,
                "message": for_api(p.message),
                "feature": p.feature,
                "field": p.field,
                "site_id": p.site_id,
            }
            for p in problem.problems
        ]
    if request_id:
        doc["request_id"] = request_id
    return doc


def respond(resp: falcon.Response, problem: ApiProblem, request_id: str | None) -> None:
    resp.status = falcon.code_to_http_status(problem.status)
    resp.content_type = PROBLEM_JSON
    resp.text = json.dumps(document(problem, request_id), indent=2) + "\n"
    if problem.status == 401:
        resp.set_header("WWW-Authenticate", 'ApiKey header="x-api-key"')


def _request_id(req: falcon.Request) -> str | None:
    value = getattr(req.context, "request_id", None)
    return value if isinstance(value, str) else None


def handle_problem(req: falcon.Request, resp: falcon.Response, ex: Exception, params: Any) -> None:
    respond(
        resp,
        ex if isinstance(ex, ApiProblem) else ApiProblem("internal_error", ""),
        _request_id(req),
    )


def handle_nrf_error(
    req: falcon.Request, resp: falcon.Response, ex: Exception, params: Any
) -> None:
    assert isinstance(ex, NrfError)
    respond(resp, from_error(ex), _request_id(req))


def handle_http_error(
    req: falcon.Request, resp: falcon.Response, ex: Exception, params: Any
) -> None:
    """Falcon's own errors (no route, wrong method, bad header) in the same shape."""
    assert isinstance(ex, falcon.HTTPError)
    status = int(str(ex.status)[:3]) if not isinstance(ex.status, int) else ex.status
    code = {
        404: "not_found",
        405: "method_not_allowed",
        415: "unsupported_media_type",
        413: "body_too_large",
    }.get(status, "bad_request")
    detail = ex.description or ex.title or "the request cannot be served"
    respond(resp, ApiProblem(code, str(detail), status=status), _request_id(req))
    if status == 405 and ex.headers:
        resp.set_headers(ex.headers)


def handle_unexpected(
    req: falcon.Request, resp: falcon.Response, ex: Exception, params: Any
) -> None:
    log.exception("request_failed", extra={"request_id": _request_id(req), "path": req.path})
    detail = "the server failed to answer; quote the request id when you report it"
    respond(resp, ApiProblem("internal_error", detail), _request_id(req))


def install(app: falcon.App) -> None:
    """Register the handlers; Falcon picks the most specific class, whatever the order."""
    app.add_error_handler(Exception, handle_unexpected)
    app.add_error_handler(falcon.HTTPError, handle_http_error)
    app.add_error_handler(NrfError, handle_nrf_error)
    app.add_error_handler(ApiProblem, handle_problem)
