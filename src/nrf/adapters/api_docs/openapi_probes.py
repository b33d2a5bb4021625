"""The OpenAPI paths anyone may call: the document itself, /health and /ready."""

from __future__ import annotations

from typing import Any

from nrf.adapters.api_docs.openapi_common import problems, ref


def probe_schemas() -> dict[str, Any]:
    return {
        "Status": {
            "type": "object",
            "required": ["status"],
            "properties": {
                "status": {"type": "string"},
                "reason": {"type": "string"},
                "bundle_name": {"type": "string"},
                "bundle_version": {"type": "string"},
                "bundle_sha256": {"type": "string"},
                "synthetic": {"type": "boolean"},
            },
        },
    }


def probe_paths() -> dict[str, Any]:
    return {
        "/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document",
                "security": [],
                "responses": {
                    "200": {
                        "description": "OpenAPI 3.1",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **problems(429),
                },
            }
        },
        "/health": {
            "get": {
                "operationId": "health",
                "summary": "The process answers and can quote",
                "security": [],
                "responses": {
                    "200": {
                        "description": "Alive",
                        "content": {"application/json": {"schema": ref("Status")}},
                    },
                    "503": {
                        "description": "The bundle could not be opened: replace the process",
                        "content": {"application/json": {"schema": ref("Status")}},
                    },
                },
            }
        },
        "/ready": {
            "get": {
                "operationId": "ready",
                "summary": "The bundle is open",
                "security": [],
                "responses": {
                    "200": {
                        "description": "Ready",
                        "content": {"application/json": {"schema": ref("Status")}},
                    },
                    "503": {
                        "description": "Not ready",
                        "content": {"application/json": {"schema": ref("Status")}},
                    },
                },
            }
        },
    }
