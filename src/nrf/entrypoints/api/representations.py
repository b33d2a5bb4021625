"""A quote in the representation the client asked for: the CLI's exact bytes for each type.

JSON, CSV and GeoJSON are made by the same functions and the same ``json.dumps`` arguments as
`nrf assess --output x.json|x.csv|x.geojson`, so an API answer and a CLI file are byte-equal.
"""

from __future__ import annotations

import json

import falcon

from nrf.adapters.outputs import legacy_csv
from nrf.adapters.outputs.html_report import ReferenceFor, render_report
from nrf.adapters.outputs.result_files import geojson_document, result_document
from nrf.service_layer.quotes import Quote

JSON = "application/json"
CSV = "text/csv"
GEOJSON = "application/geo+json"
HTML = "text/html"
OFFERED = (JSON, GEOJSON, CSV, HTML)


def preferred(req: falcon.Request, offered: tuple[str, ...] = OFFERED) -> str:
    """The best offered type for the Accept header; JSON when there is none or nothing fits."""
    accept = req.get_header("Accept")
    if not accept or accept.strip() in ("*/*", ""):
        return offered[0]
    return req.client_prefers(list(offered)) or offered[0]


def render_quote(quote: Quote, kind: str, reference_for: ReferenceFor) -> tuple[str, bytes]:
    """(Content-Type, body) of ``quote`` as ``kind``."""
    run, developments = quote.run, quote.developments
    if kind == CSV:
        return "text/csv; charset=utf-8", legacy_csv.render(run.sites).encode()
    if kind == GEOJSON:
        return GEOJSON, (json.dumps(geojson_document(run, developments)) + "\n").encode()
    if kind == HTML:
        page = render_report(run, developments, reference_for)
        return "text/html; charset=utf-8", page.encode()
    return JSON, (json.dumps(result_document(run), indent=2) + "\n").encode()
