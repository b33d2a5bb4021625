"""GET /health, GET /ready and GET /openapi.json: public, cheap, never touching the bundle.

A process that cannot quote (its bundle refused or unreadable) is not healthy either: it will
not get better by waiting, so /health says 503 and the orchestrator replaces it.
"""

from __future__ import annotations

import json
from typing import Any

import falcon

from nrf.adapters.api_docs.openapi import openapi_document
from nrf.entrypoints.api.form_outputs import OUTPUTS
from nrf.entrypoints.api.services import ApiServices


class HealthResource:
    public = True

    def __init__(self, services: ApiServices) -> None:
        self._services = services

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        if self._services.unavailable is not None:
            resp.status = falcon.HTTP_503
            resp.media = {"status": "error", "reason": "bundle_not_loaded"}
            return
        resp.media = {"status": "ok"}


class ReadyResource:
    public = True

    def __init__(self, services: ApiServices) -> None:
        self._services = services

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        if self._services.unavailable is not None:
            resp.status = falcon.HTTP_503
            resp.media = {"status": "not_ready", "reason": "bundle_not_loaded"}
            return
        bundle = self._services.bundle
        resp.media = {"status": "ready", "reason": "ready"}
        if bundle is not None:
            resp.media.update(
                bundle_name=bundle.name,
                bundle_version=bundle.version,
                bundle_sha256=bundle.sha256,
                synthetic=bundle.synthetic,
            )


def api_document() -> dict[str, Any]:
    """The API's OpenAPI document, with the answer types its upload form offers."""
    return openapi_document(outputs=[output.value for output in OUTPUTS])


class OpenApiResource:
    public = True

    def __init__(self) -> None:
        self._body = (json.dumps(api_document(), indent=2) + "\n").encode()

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = "application/json"
        resp.data = self._body
