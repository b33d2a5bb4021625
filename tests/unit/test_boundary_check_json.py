"""POST /v1/boundary-checks answers each site's EDPs as Defra's /check-boundary does."""

from __future__ import annotations

import json
from typing import Any

import falcon.testing
import jsonschema
from shapely.geometry import box

from fakes import FakeClock, FakeResultStore
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import EdpPolygon, ExcludedArea, NnCatchment
from nrf.domain.results import CatchmentOverlap, EdpOverlap, Provenance
from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api.app import create_app
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.boundary_check_json import boundary_check_document
from nrf.entrypoints.api.meta import api_document
from nrf.entrypoints.api.services import ApiServices
from nrf.service_layer.boundary_checks import BoundaryCheck, CheckBoundary, SiteCheck
from nrf.service_layer.quotes import GetQuote
from support.reference import QUOTE_MOMENT, InMemoryBoundaryData

KEY = "unit-key-0123456789"
X0, Y0 = 600_000.0, 300_000.0
PROVENANCE = Provenance(
    rule_set="iat-2026-04",
    bundle_name="b",
    bundle_version="1",
    bundle_sha256="0" * 64,
    synthetic_data=False,
    software_version="0",
)


def checked_site(**changes: Any) -> SiteCheck:
    fields: dict[str, Any] = {
        "rlb_id": 1,
        "id": "1",
        "name": "1",
        "area_ha": 2.0,
        "nn_catchments": (),
        "intersecting_edps": (),
        "edp_catchments": (),
        "intersecting_excluded_areas": (),
        "majority_wwtw_id": 1065,
        "wwtw_name": None,
        "majority_lpa": "UNKNOWN",
        "subcatchment": None,
        "in_scope": True,
        "reason_code": None,
        "reason": None,
    }
    fields.update(changes)
    return SiteCheck(**fields)


def test_each_edp_has_defras_names_and_places() -> None:
    edp = EdpOverlap(
        edp_id=1, edp_name="Norfolk EDP", overlap_m2=12345.67, overlap_percentage=61.73
    )
    inside = (
        CatchmentOverlap(label="Broads SAC", catchment_id="2", overlap_percentage=41.73),
        CatchmentOverlap(label="River Wensum SAC", catchment_id="1", overlap_percentage=20.0),
    )
    site = checked_site(
        intersecting_edps=(edp,),
        edp_catchments=(inside,),
        intersecting_excluded_areas=("", "Fen SSSI"),
    )
    [doc] = boundary_check_document(BoundaryCheck(PROVENANCE, (site,)))["sites"]
    # 12,345.67 m2 / 10,000 = 1.234567 ha -> 1.2346 (4 dp); m2 and % as given (2 dp).
    assert doc["intersectingEdps"] == [
        {
            "label": "Norfolk EDP",
            "overlapAreaHa": 1.2346,
            "overlapAreaSqm": 12345.67,
            "overlapPercentage": 61.73,
            "catchments": [
                {"label": "Broads SAC", "catchmentId": "2", "catchmentOverlapPercentage": 41.73},
                {
                    "label": "River Wensum SAC",
                    "catchmentId": "1",
                    "catchmentOverlapPercentage": 20.0,
                },
            ],
        }
    ]
    # Names, as Defra sends them; an unnamed area is still listed.
    assert doc["intersectingExcludedAreas"] == ["", "Fen SSSI"]
    assert not {"intersecting_edps", "edp_catchments", "intersecting_excluded_areas"} & set(doc)
    assert (doc["area_ha"], doc["in_scope"]) == (2.0, True)  # nrf's own facts stay


def test_the_route_answers_a_drawn_boundary_end_to_end() -> None:
    data = InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            )
        ],
        edps=[EdpPolygon(box(X0 - 500, Y0, X0 + 150, Y0 + 1000), 1, "Norfolk EDP")],
        excluded=[ExcludedArea(box(X0 + 190, Y0 + 190, X0 + 300, Y0 + 300), "Fen SSSI")],
    )
    services = ApiServices(
        quote=GetQuote(AssessDevelopments(data), clock=FakeClock(QUOTE_MOMENT)),
        check=CheckBoundary(data),
        reference_for=data.reference_for,
        store=FakeResultStore(),
        files=None,
        limits=DEFAULT_LIMITS,
    )
    client = falcon.testing.TestClient(create_app(services, ApiKeys([KEY])))
    ring = [list(p) for p in box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200).exterior.coords]
    body = {
        "type": "Feature",
        "crs": {"type": "name", "properties": {"name": "EPSG:27700"}},
        "properties": {},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }
    answer = client.simulate_post(
        "/v1/boundary-checks",
        body=json.dumps(body),
        headers={"x-api-key": KEY, "Content-Type": "application/geo+json"},
    )
    assert answer.status_code == 200, answer.text
    [site] = answer.json["sites"]
    # The 100 m square x 100..200: x 100..150 (5,000 m2 = 0.5 ha, 50 %) inside the EDP, all of
    # that in the Wensum catchment; the SSSI's corner x 190..200, y 190..200 meets it.
    assert site["intersectingEdps"] == [
        {
            "label": "Norfolk EDP",
            "overlapAreaHa": 0.5,
            "overlapAreaSqm": 5000.0,
            "overlapPercentage": 50.0,
            "catchments": [
                {
                    "label": "River Wensum SAC",
                    "catchmentId": "1",
                    "catchmentOverlapPercentage": 50.0,
                }
            ],
        }
    ]
    assert site["intersectingExcludedAreas"] == ["Fen SSSI"]
    # And the answer is what the OpenAPI document says it is.
    spec = api_document()
    schema = {"$ref": "#/components/schemas/BoundaryCheck", "components": spec["components"]}
    jsonschema.Draft202012Validator(schema).validate(answer.json)
