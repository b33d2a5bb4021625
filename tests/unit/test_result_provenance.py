"""Every result a job produces names the bundle behind it: name, version and SHA-256."""

from __future__ import annotations

import json

from shapely.geometry import box

from nrf.adapters.outputs.result_files import job_files
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.email_fields import NotifySettings, personalisation
from nrf.domain.job_request import JobRequest
from nrf.domain.model import BundleInfo, Development
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from support.reference import QUOTE_DATE, wensum_square

X0, Y0 = 600_000, 300_000
DIGEST = "ab" * 32


def run_and_sites() -> tuple[AssessmentRun, list[Development]]:
    data = wensum_square(
        (X0, Y0),
        n_current=5.0,
        p_current=0.2,
        info=BundleInfo(
            name="nrf-defra-iat",
            version="2026.11.1",
            created="2026-11-26",
            description="real data",
            sha256=DIGEST,
        ),
    )
    sites = [
        Development(
            rlb_id=1,
            id="a",
            name="A",
            dwelling_category="housing",
            source="t",
            dwellings=19,
            boundary=box(X0 + 100, Y0 + 100, X0 + 405, Y0 + 200),
        )
    ]
    return AssessDevelopments(data)(sites, rule_set_named(None), QUOTE_DATE), sites


def test_the_completed_email_names_the_bundle() -> None:
    run, _ = run_and_sites()
    request = JobRequest(
        job_id="job-1",
        development_name="Mill Lane",
        dwellings=19,
        dwelling_category="housing",
        source="t",
        boundary=None,
        boundary_uri=None,
        rules=None,
        email="a@example.org",
        trace_id=None,
        schema="nrf-job/1",
    )
    personal = personalisation(NotifySettings(), request, run)
    assert personal["bundle_name"] == "nrf-defra-iat"
    assert personal["bundle_version"] == "2026.11.1"
    assert personal["bundle_sha256"] == DIGEST


def test_every_stored_job_file_with_room_for_it_names_the_bundle() -> None:
    run, sites = run_and_sites()
    files = job_files(run, sites)
    expected = {
        "bundle_name": "nrf-defra-iat",
        "bundle_version": "2026.11.1",
        "bundle_sha256": DIGEST,
    }
    for name in ("result.json", "result.geojson", "result.provenance.json"):
        provenance = json.loads(files[name])["provenance"]
        assert {k: provenance[k] for k in expected} == expected, name
    # The legacy CSV keeps Defra's 31 columns, RLB_ID to P_Total (no room for the bundle);
    # its sidecar, result.provenance.json, carries the provenance (checked above).
    header = files["result.csv"].decode().splitlines()[0].split(",")
    assert (len(header), header[0], header[-1]) == (31, "RLB_ID", "P_Total")
    assert not any("bundle" in column.casefold() for column in header)
