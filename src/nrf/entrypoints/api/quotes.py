"""POST /v1/quotes and POST /v1/boundary-checks: a boundary in, the answer at once."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime

import falcon

from nrf.adapters.outputs.html_report import ReferenceFor
from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE
from nrf.domain.calendar_day import calendar_day
from nrf.domain.column_mapping import parse_columns, renamed_and_told
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.ports import Clock
from nrf.entrypoints.api import inputs
from nrf.entrypoints.api.answer_crs import wants_bng
from nrf.entrypoints.api.body import read_body
from nrf.entrypoints.api.boundary_check_json import boundary_check_document
from nrf.entrypoints.api.problems import ApiProblem
from nrf.entrypoints.api.query_parameters import check_query
from nrf.entrypoints.api.representations import JSON, preferred, render_quote
from nrf.entrypoints.api.services import ApiServices
from nrf.service_layer.quotes import Quote, QuoteRequest, stamped

Authorise = Callable[[dict[str, str]], None]


def available(services: ApiServices) -> ApiServices:
    """The services, or a 503 problem when the bundle could not be opened."""
    if services.unavailable is not None:
        raise ApiProblem("broken_bundle", services.unavailable)
    return services


def quote_date_from(req: falcon.Request) -> date | None:
    """``?quoteDate=YYYY-MM-DD``, once: the day to price the levy on (None: today); else 400."""
    given = req.get_param_as_list("quoteDate") or []
    if len(given) > 1:
        raise ApiProblem("bad_quote_date", "give quoteDate once")
    return parse_quote_date(given[0]) if given else None


def parse_quote_date(text: str) -> date:
    """A quote date written YYYY-MM-DD (the parameter, or the form's field); else a 400."""
    day = calendar_day(text)
    if day is None:
        shown = text[:40]
        raise ApiProblem("bad_quote_date", f"quoteDate {shown!r} is not a date written YYYY-MM-DD")
    return day


def request_from(
    req: falcon.Request, services: ApiServices, authorise: Authorise | None = None
) -> QuoteRequest:
    """The typed request from a GeoJSON or multipart body.

    ``authorise`` sees the form's text fields before any boundary is read (the upload form
    carries its key in a field).
    """
    kind = inputs.media_type(req)
    if kind not in (*inputs.GEOJSON_TYPES, inputs.MULTIPART):
        allowed = ", ".join((*inputs.GEOJSON_TYPES, inputs.MULTIPART))
        raise ApiProblem("unsupported_media_type", f"send the boundary as {allowed}")
    check_query(req)
    quote_date = quote_date_from(req)
    req.context.quote_date = quote_date
    req.context.reference = req.get_param("reference")
    body = read_body(req, services.limits.max_file_bytes)
    rules = req.get_param("rules")
    if kind == inputs.MULTIPART:
        upload, fields = inputs.form_parts(body, req.content_type or "")
        if upload is not None:
            req.context.input_name = upload[0]
        if authorise is not None:
            authorise(fields)
        req.context.reference = fields.get("reference") or req.context.reference
        if fields.get("quoteDate", "").strip():  # the form's date field beats the parameter
            quote_date = parse_quote_date(fields["quoteDate"].strip())
            req.context.quote_date = quote_date
        layer = fields.get("layer", "").strip() or req.get_param("layer")
        columns = parse_columns(fields.get("columns") or req.get_param("columns") or "")
        features, given = inputs.form_features(upload, fields, services.limits, layer)
        features, warnings = renamed_and_told(features, columns)
        return QuoteRequest(
            features=stamped(features, given),
            rules=fields.get("rules") or rules,
            quote_date=quote_date,
            warnings=warnings,
        )
    if authorise is not None:
        authorise({})
    if req.get_param("layer"):
        raise ApiProblem("unknown_layer", "a GeoJSON body has one layer; send no layer")
    columns = parse_columns(req.get_param("columns") or "")
    features, warnings = renamed_and_told(inputs.geojson_features(body, services.limits), columns)
    return QuoteRequest(
        features=tuple(features), rules=rules, quote_date=quote_date, warnings=warnings
    )


def answer_stamp(req: falcon.Request, clock: Clock) -> OutputStamp:
    """Now by ``clock``, the uploaded file's name (or the request, for a GeoJSON body), the
    quote reference given (the ``reference`` parameter or form field) and the quote date."""
    name = getattr(req.context, "input_name", None) or f"{req.method} {req.path} body"
    made = datetime.fromtimestamp(clock.now(), UTC)
    reference = (getattr(req.context, "reference", None) or "").strip() or None
    quote_date = getattr(req.context, "quote_date", None) or made.date()
    return OutputStamp(made_at=made, input_name=name, reference=reference, quote_date=quote_date)


class QuotesResource:
    def __init__(self, services: ApiServices) -> None:
        self._services = services

    @property
    def synthetic(self) -> bool:
        """Whether the open bundle is synthetic demonstration data (the form says so)."""
        bundle = self._services.bundle
        return bool(bundle is not None and bundle.synthetic)

    @property
    def reference_for(self) -> ReferenceFor:
        assert self._services.reference_for is not None
        return self._services.reference_for

    def quote(self, req: falcon.Request, authorise: Authorise | None = None) -> Quote:
        services = available(self._services)
        assert services.quote is not None
        request = request_from(req, services, authorise)
        with services.geo_lock:
            return services.quote(request)

    def stamp(self, req: falcon.Request) -> OutputStamp:
        return answer_stamp(req, self._services.clock)

    def render(
        self,
        quote: Quote,
        kind: str,
        stamp: OutputStamp | None = None,
        *,
        downloads: str = "",
        bng: bool = False,
    ) -> tuple[str, bytes]:
        """The answer in ``kind``; a report reads the bundle's geometries, so under the lock."""
        with self._services.geo_lock:
            return render_quote(
                quote, kind, self.reference_for, stamp, downloads=downloads, bng=bng
            )

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        kind = preferred(req)
        bng = wants_bng(req, kind)  # refused before the body is read
        quote = self.quote(req)
        resp.content_type, resp.data = self.render(quote, kind, self.stamp(req), bng=bng)
        resp.set_header("Vary", "Accept")


class BoundaryChecksResource:
    def __init__(self, services: ApiServices) -> None:
        self._services = services

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        wants_bng(req, preferred(req, (JSON,)))  # crs is for GeoJSON: refused here
        services = available(self._services)
        assert services.check is not None
        request = request_from(req, services)
        with services.geo_lock:
            checked = services.check(request)
        doc = {"notice": SYNTHETIC_NOTICE} if checked.provenance.synthetic_data else {}
        doc.update(boundary_check_document(checked))
        resp.content_type = JSON
        resp.data = (json.dumps(doc, indent=2) + "\n").encode()
        resp.set_header("Vary", "Accept")
