"""API keys: ``x-api-key`` checked in constant time against every configured key.

Every key is compared (no early exit), so the time taken says nothing about which key, or how
much of one, matched; keys are compared as SHA-256 digests, so their lengths leak nothing
either. A key is never logged: the access log names a key only by its position in the list.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

import falcon

from nrf.entrypoints.api.problems import ApiProblem

HEADER = "x-api-key"


class ApiKeys:
    """The accepted keys; with none and ``anonymous`` every request is let in (the demo)."""

    def __init__(self, keys: Iterable[str], anonymous: bool = False) -> None:
        self._digests = [hashlib.sha256(k.encode()).digest() for k in keys if k]
        self.anonymous = anonymous and not self._digests

    @property
    def configured(self) -> bool:
        return bool(self._digests) or self.anonymous

    def which(self, key: str | None) -> int | None:
        """The 1-based position of the matching key, or None."""
        if key is None:
            return None
        given = hashlib.sha256(key.encode()).digest()
        found = 0
        for position, digest in enumerate(self._digests, start=1):
            if hmac.compare_digest(given, digest):
                found = found or position
        return found or None

    def check(self, req: falcon.Request, key: str | None = None) -> None:
        """Let the request in, or raise a 401 problem; ``key`` overrides the header (a form)."""
        if self.anonymous:
            return
        given = key if key is not None else req.get_header(HEADER)
        if not given:
            raise ApiProblem("unauthorized", f"send your API key in the {HEADER} header")
        position = self.which(given)
        if position is None:
            raise ApiProblem("unauthorized", "the API key is not valid")
        req.context.key_number = position


class AuthMiddleware:
    """Checks every route except those whose resource says ``public = True``."""

    def __init__(self, keys: ApiKeys) -> None:
        self._keys = keys

    def process_resource(
        self, req: falcon.Request, resp: falcon.Response, resource: object, params: dict
    ) -> None:
        if resource is None or getattr(resource, "public", False):
            return
        self._keys.check(req)
