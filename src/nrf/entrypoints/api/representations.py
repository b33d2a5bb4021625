"""A quote in the representation the client asked for: the CLI's bytes for each type.

JSON, CSV and GeoJSON are made by the same functions and the same ``json.dumps`` arguments as
`nrf assess --output x.json|x.levy.csv|x.geojson`, so an API answer and a CLI file are equal
but for the stamp (when and from what each was made). The CSV answer is the levy table (the
levy, what priced it and the synthetic notice on every row), not the legacy 31 columns, which
carry no money.
"""

from __future__ import annotations

import json

import falcon

from nrf.adapters.outputs import levy_csv
from nrf.adapters.outputs.html_report import ReferenceFor, render_report
from nrf.adapters.outputs.indented_json import dumps_indented
from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE, geojson_document, result_document
from nrf.domain.output_stamp import OutputStamp
from nrf.entrypoints.api.negotiation import negotiate
from nrf.service_layer.quotes import Quote

JSON = "application/json"
CSV = "text/csv"
GEOJSON = "application/geo+json"
HTML = "text/html"
OFFERED = (JSON, GEOJSON, CSV, HTML)


def preferred(req: falcon.Request, offered: tuple[str, ...] = OFFERED) -> str:
    """The best offered type for the Accept header (the first without one); else a 406."""
    return negotiate(req.get_header("Accept"), offered)


def render_quote(
    quote: Quote,
    kind: str,
    reference_for: ReferenceFor,
    stamp: OutputStamp | None = None,
    *,
    downloads: str = "",
    bng: bool = False,
) -> tuple[str, bytes]:
    """(Content-Type, body) of ``quote`` as ``kind``; ``downloads`` goes in an HTML report;
    ``bng`` makes GeoJSON the British National Grid copy (``--output x.bng.geojson``)."""
    run, developments = quote.run, quote.developments
    if kind == CSV:
        notice = SYNTHETIC_NOTICE if run.provenance.synthetic_data else None
        return "text/csv; charset=utf-8", levy_csv.render(run, notice, stamp).encode()
    if kind == GEOJSON:
        doc = geojson_document(run, developments, stamp, bng=bng)
        return GEOJSON, (json.dumps(doc) + "\n").encode()
    if kind == HTML:
        page = render_report(run, developments, reference_for, stamp, downloads=downloads)
        return "text/html; charset=utf-8", page.encode()
    # json.dumps(..., indent=2)'s text, as `nrf assess --output x.json` writes it, made faster.
    return JSON, (dumps_indented(result_document(run, stamp)) + "\n").encode()
