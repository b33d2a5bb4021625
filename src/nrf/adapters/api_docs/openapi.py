"""The OpenAPI 3.1 document of the routes `create_app` serves (a test checks they agree).

Each group of paths lives in its own module with the schemas only it uses (quotes, boundary
checks, probes); this one puts them together in the order the document has always had, so
the served bytes do not move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nrf import __version__
from nrf.adapters.api_docs.openapi_boundaries import boundary_paths, boundary_schemas
from nrf.adapters.api_docs.openapi_common import SECURED, common_schemas
from nrf.adapters.api_docs.openapi_probes import probe_paths, probe_schemas
from nrf.adapters.api_docs.openapi_quotes import (
    form_paths,
    job_paths,
    job_schemas,
    quote_paths,
    quote_schemas,
)


def openapi_document(outputs: Sequence[str]) -> dict[str, Any]:
    """The whole document; ``outputs`` are the form's answer types (its ``output`` field)."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "nrf quote API",
            "version": __version__,
            "description": "Nutrient levy quotes: the same documents as `nrf assess`.",
        },
        "components": {
            "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"}},
            "schemas": {
                **common_schemas(outputs),
                **quote_schemas(),
                **boundary_schemas(),
                **job_schemas(),
                **probe_schemas(),
            },
        },
        "paths": {
            **quote_paths(),
            **boundary_paths(),
            **job_paths(),
            **form_paths(),
            **probe_paths(),
        },
        "security": SECURED,
    }
