"""Site ids used by several sites are told in the API's JSON and report, the form's report,
the CLI's files and the worker's result and log, not only on the CLI's terminal."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import attrs
import falcon.testing
import pytest
from shapely.geometry import box

from fakes import FakeClock, FakeNotifier, FakeResultStore
from nrf.adapters.outputs.html_report import report_renderer
from nrf.adapters.outputs.result_files import files_for
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.job_request import JobRequest
from nrf.domain.jobs import QueueMessage
from nrf.domain.model import Development
from nrf.domain.results import AssessmentRun, RunWarning
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import RawFeature
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.receives import Receives
from support.reference import QUOTE_DATE, STRIP_ORIGIN, two_catchment_strip

X0, Y0 = STRIP_ORIGIN
CODE = "repeated_site_ids"
# The CLI's own sentence for two sites sharing the id "A".
SENTENCE = (
    "1 site id(s) are used by more than one site: 'A' (2 sites); "
    "each site is quoted, but results read by id will mix them"
)


def _feature(x: float, site_id: str) -> dict:
    ring = [list(p) for p in box(X0 + x, Y0 + 100, X0 + x + 100, Y0 + 200).exterior.coords]
    return {
        "type": "Feature",
        "properties": {"id": site_id, "name": "Site", "dwellings": 10},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


def _body(*ids: str) -> str:
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    features = [_feature(100 + 200 * n, site_id) for n, site_id in enumerate(ids)]
    return json.dumps({"type": "FeatureCollection", "crs": crs, "features": features})


def _quote(body: str, accept: str) -> falcon.testing.Result:
    return anonymous_client().simulate_post(
        "/v1/quotes", body=body, headers={"Content-Type": "application/geo+json", "Accept": accept}
    )


def test_the_api_json_answer_lists_the_warning_with_its_code_and_ids() -> None:
    answer = _quote(_body("A", "B", "A"), "application/json")
    assert answer.status_code == 200, answer.text[:300]
    assert answer.json["warnings"] == [{"code": CODE, "message": SENTENCE, "site_ids": ["A"]}]
    assert len(answer.json["sites"]) == 3  # every site is still quoted
    assert _quote(_body("A", "B"), "application/json").json["warnings"] == []


def _said_in_html(page: str) -> bool:
    return f"<code>{CODE}</code>" in page and "&#x27;A&#x27; (2 sites)" in page


def test_the_api_report_says_so() -> None:
    answer = _quote(_body("A", "A"), "text/html")
    assert answer.status_code == 200
    assert _said_in_html(answer.text)
    assert not _said_in_html(_quote(_body("A", "B"), "text/html").text)


def test_the_forms_report_says_so() -> None:
    data, content_type = multipart({"boundary": ("two.geojson", _body("A", "A").encode())}, {})
    answer = anonymous_client().simulate_post(
        "/", body=data, headers={"Content-Type": content_type, "Accept": "text/html"}
    )
    assert answer.status_code == 200, answer.text[:300]
    assert _said_in_html(answer.text)


def _development(rlb_id: int, site_id: str) -> Development:
    return Development(
        rlb_id=rlb_id,
        id=site_id,
        name="Site",
        dwelling_category="housing",
        source="",
        dwellings=10,
        boundary=box(X0 + 200 * rlb_id, Y0 + 100, X0 + 200 * rlb_id + 100, Y0 + 200),
    )


def test_a_run_of_the_use_case_carries_it_into_the_clis_json_file(tmp_path: Path) -> None:
    developments = [_development(1, "A"), _development(2, "A")]
    run = AssessDevelopments(two_catchment_strip())(
        developments, rule_set_named("iat-2026-04"), QUOTE_DATE
    )
    [text] = files_for(tmp_path / "x.json", run, developments).values()
    doc = json.loads(text if isinstance(text, str) else "".join(text))
    assert [w["code"] for w in doc["warnings"]] == [CODE]


class WarnedAssessment:
    """The real assessment, with a warning added to its run (a job is one site, so no real
    job repeats an id): what the worker does with any warning of its run."""

    def __init__(self, assess: AssessDevelopments) -> None:
        self._assess = assess
        self.runs: list[AssessmentRun] = []

    def __call__(self, *args: Any, **kwargs: Any) -> AssessmentRun:
        run = self._assess(*args, **kwargs)
        warned = attrs.evolve(run, warnings=(RunWarning(code=CODE, message=SENTENCE),))
        self.runs.append(warned)
        return warned


class OneSite:
    def features(self, request: JobRequest) -> list[RawFeature]:
        return [
            RawFeature(index=1, properties={}, geometry=box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200))
        ]


def test_the_worker_stores_a_runs_warning_in_result_json_and_logs_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    repository = two_catchment_strip()
    store = FakeResultStore()
    assess = WarnedAssessment(AssessDevelopments(repository))
    process = Receives(
        repository=repository,
        source=OneSite(),
        render=report_renderer(repository),
        store=store,
        notifier=FakeNotifier(),
        clock=FakeClock(),
        assess=assess,
    )
    message = {
        "job_id": "job-1",
        "development": {"name": "Test", "dwellings": 19, "dwelling_category": "housing"},
        "boundary": {"type": "Polygon", "coordinates": []},
    }
    with caplog.at_level(logging.INFO):
        outcome = process(
            QueueMessage(
                message_id="m-1",
                receipt_handle="r-1",
                body=json.dumps(message),
                receive_count=1,
                sent_at=None,
            )
        )
    assert outcome.status == "succeeded" and assess.runs
    result = json.loads(store.files["job-1"]["result.json"])
    assert result["warnings"] == [{"code": CODE, "message": SENTENCE, "site_ids": []}]
    assert _said_in_html(store.files["job-1"]["result.html"].decode())
    [logged] = [r for r in caplog.records if r.getMessage() == "run_warning"]
    assert (logged.levelno, logged.code, logged.warning) == (logging.WARNING, CODE, SENTENCE)  # type: ignore[attr-defined]
    assert logged.job_id == "job-1"  # type: ignore[attr-defined]
