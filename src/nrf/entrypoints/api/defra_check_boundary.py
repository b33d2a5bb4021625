"""POST /check-boundary: Defra's boundary check, same request, answer and statuses, over nrf.

The request is Defra's: a multipart form with the boundary file (Defra names the part
``geometry_file``; nrf takes its one file part) and, for a zip, ``boundary_filename``, the
member to read. Defra reads .zip, .geojson, .json and .kml only; anything else is
``unsupported_file_type``. Every failure is answered in the same six-key document as a success,
with Defra's code (``boundary_codes`` maps nrf's own); nrf's fuller message goes in the
``X-Nrf-Problem`` header (and the log), so nothing Defra's front end reads changes. The key is
the ``x-api-key`` header, as on nrf's other routes and on Defra's impact assessor.
"""

from __future__ import annotations

import json
import logging
from pathlib import PurePath

import falcon

from nrf.adapters.http_server.gate_types import Answer
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.domain.boundary_codes import defra_code
from nrf.domain.defra_geometry import MEANING
from nrf.domain.errors import InvalidInput, NrfError
from nrf.domain.validation import InputLimits
from nrf.entrypoints.api import inputs
from nrf.entrypoints.api.body import read_body
from nrf.entrypoints.api.defra_check_json import check_document, defra_answer, status_of
from nrf.entrypoints.api.problems import TOO_LARGE, ApiProblem
from nrf.entrypoints.api.quotes import available
from nrf.entrypoints.api.services import ApiServices
from nrf.service_layer.defra_boundary_check import DefraCheckRequest

log = logging.getLogger("nrf.api")
CHECK_BOUNDARY = "/check-boundary"
JSON = "application/json"
SUFFIXES = (".zip", ".geojson", ".json", ".kml")
# nrf's code for a zip member that is not there, when the member was named (Defra's own code).
_NAMED_MEMBER_MISSING = {"unknown_layer": "boundary_file_not_found_in_zip"}


class Refused(Exception):
    """A request refused before any geometry is judged: Defra's code and nrf's own account."""

    def __init__(
        self, code: str, detail: str, *, nrf_code: str | None = None, too_large: bool = False
    ) -> None:
        super().__init__(detail)
        self.code, self.detail, self.nrf_code = code, detail, nrf_code or code
        self.too_large = too_large or code == "file_size_too_large"

    def header(self) -> str:
        """nrf's code and message as one printable ASCII line, for ``X-Nrf-Problem``."""
        text = f"{self.nrf_code}: {self.detail}".encode("ascii", "replace").decode()
        return "".join(c if c.isprintable() else " " for c in text)[:500]


def _refused_from(error: NrfError) -> Refused:
    codes = error.codes if isinstance(error, InvalidInput) else [error.code]
    nrf_code = codes[0] if codes else error.code
    code = _NAMED_MEMBER_MISSING.get(nrf_code) or defra_code(nrf_code) or nrf_code
    return Refused(code, error.message, nrf_code=nrf_code, too_large=nrf_code in TOO_LARGE)


def too_large_answer(detail: str) -> Answer:
    """The server gate's 413 for this route: Defra's document, ``file_size_too_large``."""
    refused = Refused("file_size_too_large", detail, nrf_code="body_too_large")
    body = json.dumps(defra_answer(error=refused.code)).encode()
    headers = (("content-type", JSON), ("x-nrf-problem", refused.header()))
    return Answer(status=413, headers=headers, body=body, code=refused.code)


class DefraCheckBoundaryResource:
    def __init__(self, services: ApiServices) -> None:
        self._services = services

    def _features(self, req: falcon.Request, limits: InputLimits) -> DefraCheckRequest:
        try:
            body = read_body(req, limits.max_file_bytes)
        except ApiProblem as problem:
            if problem.code == "body_too_large":
                raise Refused(
                    "file_size_too_large", problem.detail, nrf_code=problem.code
                ) from None
            raise Refused(
                "unreadable_geometry_file", problem.detail, nrf_code=problem.code
            ) from None
        if inputs.media_type(req) != inputs.MULTIPART:
            raise Refused("upload_file_missing", "send the boundary file as multipart/form-data")
        try:
            upload, fields = inputs.form_parts(body, req.content_type or "")
        except ApiProblem as problem:
            raise Refused(
                "unreadable_geometry_file", problem.detail, nrf_code=problem.code
            ) from None
        if upload is None:
            raise Refused("upload_file_missing", "the form has no file part (geometry_file)")
        name, content = upload
        suffix = PurePath(name).suffix.lower()
        if suffix not in SUFFIXES:
            raise Refused("unsupported_file_type", f"{suffix or name!r}: use {', '.join(SUFFIXES)}")
        # Defra names a zip's member by its bare file name; nrf's zip reader by its stem.
        member = PurePath(fields.get("boundary_filename", "").strip()).stem or None
        try:
            features = read_boundary_bytes(
                content, name, limits, layer=member if suffix == ".zip" else None
            )
        except NrfError as error:
            raise _refused_from(error) from None
        return DefraCheckRequest(tuple(features))

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        services = available(self._services)
        assert services.defra_check is not None
        too_large = False
        try:
            request = self._features(req, services.limits)
        except Refused as refused:
            log.info(
                "defra_check_refused",
                extra={"code": refused.code, "nrf_code": refused.nrf_code},
            )
            too_large = refused.too_large
            doc = defra_answer(error=refused.code)
            resp.set_header("X-Nrf-Problem", refused.header())
        else:
            with services.geo_lock:
                checked = services.defra_check(request)
            doc = check_document(checked)
            if checked.error is not None:
                explained = Refused(checked.error, MEANING.get(checked.error, checked.error))
                resp.set_header("X-Nrf-Problem", explained.header())
        resp.status = falcon.code_to_http_status(status_of(doc["error"], too_large=too_large))
        resp.content_type = JSON
        resp.data = json.dumps(doc, allow_nan=False).encode()
