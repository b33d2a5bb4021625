"""Who may send a body: the key is checked before the body is read, so strangers cost nothing.

A request that carries a body (any method but GET, HEAD, OPTIONS) needs a valid key in
``x-api-key``; the upload form (POST /) may instead send it in its ``api_key`` field, which the
form page puts first, so it is found in the body's first ``FORM_KEY_WINDOW`` bytes, before the
file. Anything without a valid key there is refused (401) without reading further. The app
checks the key again (auth.py): this is the early refusal, not the only one.
"""

from __future__ import annotations

import io
import json
import uuid
from typing import Literal

import falcon
from falcon.media.multipart import MultipartFormHandler, MultipartParseOptions

from nrf.adapters.http_server.gate import MORE, READS, Admission, Answer, Head, NeedsPrefix
from nrf.entrypoints.api.auth import HEADER, ApiKeys
from nrf.entrypoints.api.form import problem_page
from nrf.entrypoints.api.problems import PROBLEM_JSON, ApiProblem, document

FORM_KEY_WINDOW = 64 * 1024
FORM_PATH = "/"
KEY_FIELD = "api_key"
_OPTIONS = MultipartParseOptions()
_OPTIONS.max_body_part_count = 16
_OPTIONS.max_body_part_headers_size = 8192


def form_key(prefix: bytes, content_type: str) -> str | Literal["more"] | None:
    """The ``api_key`` field if it comes, whole, before any file part in ``prefix``; None when
    a file part comes first; MORE when ``prefix`` ends (or is malformed) before either."""
    handler = MultipartFormHandler(_OPTIONS)
    try:
        for part in handler.deserialize(io.BytesIO(prefix), content_type, len(prefix)):
            if part.filename:
                return None
            if part.name == KEY_FIELD:
                key = str(part.text)
                # The parser gives a part cut off by the end of the prefix as if whole: the key
                # is known only once the delimiter after it has arrived.
                boundary = falcon.parse_header(content_type)[1].get("boundary", "")
                whole = f"{key}\r\n--{boundary}".encode() in prefix
                return key if whole else MORE
    except (falcon.HTTPError, ValueError, UnicodeDecodeError):
        return MORE  # cut off inside a part (or not a form: the final check refuses it)
    return MORE


def refusal(head: Head, detail: str) -> Answer:
    """401 as a problem document, or as a page for a browser that sent the form."""
    problem, request_id = ApiProblem("unauthorized", detail), uuid.uuid4().hex
    if head.path == FORM_PATH and "text/html" in head.headers.get("accept", ""):
        body = problem_page(problem).encode()
        page = (("content-type", "text/html; charset=utf-8"), ("x-request-id", request_id))
        return Answer(status=401, headers=page, body=body, code=problem.code)
    body = (json.dumps(document(problem, request_id), indent=2) + "\n").encode()
    challenge = ("www-authenticate", f'ApiKey header="{HEADER}"')
    headers = (("content-type", PROBLEM_JSON), challenge, ("x-request-id", request_id))
    return Answer(status=401, headers=headers, body=body, code=problem.code)


def admission(keys: ApiKeys) -> Admission:
    """The gate's check of a request's headers (and the form's first field)."""

    def admit(head: Head) -> Answer | NeedsPrefix | None:
        if keys.anonymous or head.method in READS:
            return None
        given = head.headers.get(HEADER)
        if given:
            return None if keys.which(given) else refusal(head, "the API key is not valid")
        if head.path != FORM_PATH:
            return refusal(head, f"send your API key in the {HEADER} header")
        content_type = head.headers.get("content-type", "")

        def check(prefix: bytes, final: bool) -> Answer | Literal["more"] | None:
            key = form_key(prefix, content_type)
            if key == MORE and not final:
                return MORE
            if key is None or key == MORE:
                detail = f"send your API key in the {HEADER} header or the form's first field"
                return refusal(head, detail)
            return None if keys.which(key) else refusal(head, "the API key is not valid")

        return NeedsPrefix(FORM_KEY_WINDOW, check)

    return admit
