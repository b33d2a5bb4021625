"""Results as GeoJSON that GIS opens right: flat typed attributes, MultiPolygon, CRS declared.

QGIS and GDAL make one attribute column per top-level property and guess its type from the
values: a nested object becomes a text blob, money written as a string stays text, and a
layer mixing Polygon with MultiPolygon is reported as ``Unknown``. So every feature has the
same flat properties (numbers as JSON numbers, lists joined with "; ", null where a figure
does not apply) and every boundary is a MultiPolygon.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import Any

import shapely
from shapely.geometry import MultiPolygon, Polygon

from nrf.domain.bng import geojson_crs
from nrf.domain.model import Development
from nrf.domain.results import AssessmentRun, LevyQuote, OutOfScopeSite, SiteAssessment

CRS_MEMBER = geojson_crs()
_FIGURES = (
    "dev_area_ha",
    "area_in_nn_catchment_ha",
    "dev_subcatchment",
    "majority_lpa",
    "majority_wwtw_id",
    "wwtw_name",
    "wwtw_subcatchment",
    "n_lu_uplift",
    "p_lu_uplift",
    "n_lu_post_suds",
    "p_lu_post_suds",
    "occupancy_rate",
    "water_usage_l_per_person_day",
    "rates_source",
    "litres_used",
    "n_conc_2025_2030",
    "n_conc_2030_on",
    "p_conc_2025_2030",
    "p_conc_2030_on",
    "n_wwtw_temp",
    "p_wwtw_temp",
    "n_wwtw_perm",
    "p_wwtw_perm",
    "n_total",
    "p_total",
)
_MONEY = ("levy_gbp", "monitoring_gbp", "maintenance_gbp", "admin_gbp", "mitigation_gbp")


def _clean(value: object) -> object:
    # Binary noise (0.8200000000000001) would show in the attribute table; nine decimals
    # keep every figure the calculation means and drop the noise.
    return round(value, 9) if isinstance(value, float) else value


def _money(quote: LevyQuote | None) -> dict[str, float | None]:
    return {
        name: None if quote is None else float(Decimal(getattr(quote, name))) for name in _MONEY
    }


def site_properties(item: SiteAssessment | OutOfScopeSite, synthetic: bool) -> dict[str, Any]:
    """The flat attribute row of one site, the same keys for assessed and out-of-scope ones."""
    s = item.site
    props: dict[str, Any] = {
        "rlb_id": s.rlb_id,
        "id": s.id,
        "name": s.name,
        "dwelling_category": s.dwelling_category,
        "source": s.source,
        "dwellings": s.dwellings,
    }
    if isinstance(item, SiteAssessment):
        props["status"] = "assessed"
        props.update({name: _clean(getattr(item, name)) for name in _FIGURES})
        props["nn_catchments"] = "; ".join(item.nn_catchments) or None
        props["edp_ids"] = "; ".join(e.edp_id for e in item.levy_by_edp) or None
        props.update(_money(item.levy))
        props["reason_code"] = props["reason"] = None
    else:
        props["status"] = "out_of_scope"
        props.update(dict.fromkeys(_FIGURES))
        props["nn_catchments"] = props["edp_ids"] = None
        props.update(_money(None))
        props["reason_code"], props["reason"] = item.reason_code, item.reason
    props["synthetic_data"] = synthetic
    return props


def multipolygon(boundary: Polygon | MultiPolygon) -> dict[str, Any]:
    """The boundary as a GeoJSON MultiPolygon (a Polygon becomes a one-part MultiPolygon)."""
    geometry = MultiPolygon([boundary]) if isinstance(boundary, Polygon) else boundary
    mapped: dict[str, Any] = shapely.geometry.mapping(geometry)
    return mapped


def features(
    run: AssessmentRun,
    developments: Sequence[Development],
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """One feature per site, assessed or out of scope, in input order, made as they are read."""
    boundaries = {d.rlb_id: d.boundary for d in developments}
    items: list[SiteAssessment | OutOfScopeSite] = [*run.sites, *run.out_of_scope]
    items.sort(key=lambda item: item.site.rlb_id)
    synthetic = run.provenance.synthetic_data
    for done, item in enumerate(items, start=1):
        yield {
            "type": "Feature",
            "properties": site_properties(item, synthetic),
            "geometry": multipolygon(boundaries[item.site.rlb_id]),
        }
        if progress is not None:
            progress(done, len(items))
