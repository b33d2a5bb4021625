"""A ``catchments[]`` row names its id ``lowest_oid``, never ``edp_id``, in every JSON answer."""

from __future__ import annotations

import json
from typing import Any

from shapely.geometry import box

from nrf.adapters.api_docs.openapi import openapi_document
from nrf.adapters.outputs.result_files import job_files
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import Development
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from support.api_in_process import anonymous_client
from support.reference import QUOTE_DATE, STRIP_ORIGIN, two_catchment_strip

X0, Y0 = STRIP_ORIGIN
# 900-1100 east: half in the Wensum (OID 1), half in the Broads (OID 2), all in EDP 1.
STRADDLING = box(X0 + 900, Y0 + 100, X0 + 1100, Y0 + 200)
SITE = {"id": "s", "name": "Site", "dwelling_category": "housing", "source": "", "dwellings": 10}


def _rows_are_named_apart(site: dict[str, Any]) -> None:
    rows = {c["n2k_site_name"]: c for c in site["catchments"]}
    assert {name: c["lowest_oid"] for name, c in rows.items()} == {
        "River Wensum SAC": "1",
        "The Broads SAC": "2",
    }
    assert not any("edp_id" in c for c in site["catchments"])
    assert [e["edp_id"] for e in site["edps"]] == [1]  # the EDP's id keeps its name


def test_the_api_json_answer_names_a_catchment_rows_id_lowest_oid() -> None:
    ring = [list(p) for p in STRADDLING.exterior.coords]
    feature = {
        "type": "Feature",
        "properties": SITE,
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    body = json.dumps({"type": "FeatureCollection", "crs": crs, "features": [feature]})
    answer = anonymous_client().simulate_post(
        "/v1/quotes",
        body=body,
        headers={"Content-Type": "application/geo+json", "Accept": "application/json"},
    )
    assert answer.status_code == 200, answer.text
    [site] = answer.json["sites"]
    _rows_are_named_apart(site)


def test_the_worker_result_file_names_it_alike() -> None:
    development = Development(
        rlb_id=1,
        id="s",
        name="Site",
        dwelling_category="housing",
        source="",
        dwellings=10,
        boundary=STRADDLING,
    )
    run: AssessmentRun = AssessDevelopments(two_catchment_strip())(
        [development], rule_set_named("iat-2026-04"), QUOTE_DATE
    )
    [site] = json.loads(job_files(run, [development])["result.json"])["sites"]
    _rows_are_named_apart(site)


def test_the_openapi_result_schema_documents_lowest_oid_and_no_edp_id_for_the_row() -> None:
    schemas = openapi_document(outputs=["json"])["components"]["schemas"]
    row = schemas["CatchmentImpact"]["properties"]
    assert "lowest_oid" in row and "edp_id" not in row
    assert "edp_id" in schemas["EdpOverlap"]["properties"]
