"""GET /v1/jobs/{job_id}: a queued job's outcome as the worker stored it, for polling."""

from __future__ import annotations

import json
from typing import Any

import falcon

from nrf.domain.errors import InvalidInput
from nrf.domain.jobs import JobStatus, validate_job_id
from nrf.entrypoints.api.problems import ApiProblem
from nrf.entrypoints.api.representations import HTML, JSON, preferred
from nrf.entrypoints.api.services import ApiServices


class JobsResource:
    def __init__(self, services: ApiServices) -> None:
        self._services = services

    def on_get(self, req: falcon.Request, resp: falcon.Response, job_id: str) -> None:
        kind = preferred(req, (JSON, HTML))
        store, files = self._services.store, self._services.files
        if store is None or files is None:
            raise ApiProblem("result_store_unavailable", "no result store is configured")
        not_found = ApiProblem(
            "job_not_found",
            f"no finished job {job_id!r}: it is unknown, or still queued (poll again later)",
        )
        try:
            validate_job_id(job_id)
        except InvalidInput:
            raise not_found from None
        record = store.record(job_id)
        if record is None:
            raise not_found
        if kind == HTML:
            page = files.read(job_id, "result.html")
            if page is None:
                raise ApiProblem("job_not_found", f"job {job_id!r} has no report")
            resp.content_type, resp.data = "text/html; charset=utf-8", page
            return
        doc: dict[str, Any] = {
            "job_id": record.job_id,
            "status": str(record.status),
            "finished_at": record.finished_at,
            "error_codes": list(record.error_codes),
            "message": record.message,
            "trace_id": record.trace_id,
        }
        if record.status is JobStatus.SUCCEEDED:
            result = files.read(job_id, "result.json")
            doc["result"] = json.loads(result) if result is not None else None
        resp.content_type = JSON
        resp.data = (json.dumps(doc, indent=2) + "\n").encode()
        resp.set_header("Vary", "Accept")
