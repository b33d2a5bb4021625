"""The answer of `POST /v1/boundary-checks`: nrf's per-site facts plus Defra's EDP shape.

Under Defra's own names (``intersectingEdps``, ``intersectingExcludedAreas``), each EDP as its
``/check-boundary`` gives it: ``label`` (the EDP's name), ``overlapAreaHa`` (4 dp),
``overlapAreaSqm`` (2 dp), ``overlapPercentage`` (share of the boundary, 2 dp) and
``catchments`` (each catchment by its own ``label`` with its ``catchmentId``, the lowest OID of
its polygons, and ``catchmentOverlapPercentage``: share of the boundary, 2 dp), so a client
built for Defra's check reads ours unchanged. (The drop-in ``POST /check-boundary``,
``defra_boundary_check``, answers in Defra's exact names and status codes.)
"""

from __future__ import annotations

from typing import Any

from nrf.domain.results import CatchmentOverlap, EdpOverlap
from nrf.domain.serialization import unstructure
from nrf.service_layer.boundary_checks import BoundaryCheck, SiteCheck

M2_PER_HA = 10_000.0
_DEFRA_SHAPED = ("intersecting_edps", "edp_catchments", "intersecting_excluded_areas")


def _edp(edp: EdpOverlap, catchments: tuple[CatchmentOverlap, ...]) -> dict[str, Any]:
    return {
        "label": edp.edp_name,
        "overlapAreaHa": round(edp.overlap_m2 / M2_PER_HA, 4),
        "overlapAreaSqm": round(edp.overlap_m2, 2),
        "overlapPercentage": round(edp.overlap_percentage, 2),
        "catchments": [
            {
                "label": c.label,
                "catchmentId": c.catchment_id,
                "catchmentOverlapPercentage": round(c.overlap_percentage, 2),
            }
            for c in catchments
        ],
    }


def _site(site: SiteCheck) -> dict[str, Any]:
    doc: dict[str, Any] = unstructure(site)
    for key in _DEFRA_SHAPED:
        doc.pop(key)
    doc["intersectingEdps"] = [
        _edp(edp, inside)
        for edp, inside in zip(site.intersecting_edps, site.edp_catchments, strict=True)
    ]
    doc["intersectingExcludedAreas"] = list(site.intersecting_excluded_areas)
    return doc


def boundary_check_document(checked: BoundaryCheck) -> dict[str, Any]:
    """The JSON document: provenance, and each site with its EDPs in Defra's names."""
    return {
        "provenance": unstructure(checked.provenance),
        "sites": [_site(site) for site in checked.sites],
    }
