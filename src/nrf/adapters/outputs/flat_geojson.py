"""Results as GeoJSON that GIS opens right: flat typed attributes, MultiPolygon, RFC 7946.

RFC 7946 GeoJSON is WGS 84 longitude, latitude with no ``crs`` member, exteriors
anticlockwise: what web maps and ``geojson.io`` assume. The boundaries are assessed in British
National Grid, so a copy in those metres (declared in the old ``crs`` member, which QGIS and
GDAL honour) is offered on request (``bng=True``: ``NAME.bng.geojson``, ``result.bng.geojson``).

QGIS and GDAL make one attribute column per top-level property and guess its type from the
values: a nested object becomes a text blob, money written as a string stays text, and a
layer mixing Polygon with MultiPolygon is reported as ``Unknown``. So every feature has the
same flat properties (numbers as JSON numbers, lists joined with "; ", null where a figure
does not apply) and every boundary is a MultiPolygon.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from pyproj import Transformer
from shapely.geometry import MultiPolygon, Polygon

from nrf.adapters.outputs.spooled_run import in_input_order, with_boundaries
from nrf.domain.bng import BNG, bng_crs_member
from nrf.domain.model import Development
from nrf.domain.results import AssessmentRun, OutOfScopeSite, SiteAssessment

CRS_MEMBER = bng_crs_member()
# Seven decimals of a degree are about a centimetre: a boundary keeps its survey's precision.
DEGREE_DECIMALS = 7
_local = threading.local()
FIGURES = (
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
LEVY = (
    "levy_status",
    "edp_id",
    "edp_name",
    "units",
    "quote_date",
    "charge_per_unit_gbp",
    "levy_excl_vat_gbp",
    "vat_gbp",
    "levy_incl_vat_gbp",
    "levy_refusal_code",
    "levy_refusal",
)


def _clean(value: object) -> object:
    # Binary noise (0.8200000000000001) would show in the attribute table; nine decimals
    # keep every figure the calculation means and drop the noise.
    return round(value, 9) if isinstance(value, float) else value


def _levy(site: SiteAssessment | None) -> dict[str, Any]:
    """The levy columns: the quote's figures, or the refusal's code and words (money null)."""
    props: dict[str, Any] = dict.fromkeys(LEVY)
    if site is None:
        return props
    pricing, refusal = site.pricing, site.levy_refusal
    if pricing is not None:
        props.update(
            levy_status="quoted",
            edp_id=pricing.edp_id,
            edp_name=pricing.edp_name,
            units=pricing.units,
            quote_date=pricing.quote_date.isoformat(),
            charge_per_unit_gbp=float(pricing.per_unit_charge),
            levy_excl_vat_gbp=float(pricing.amount_excluding_vat),
            vat_gbp=float(pricing.vat),
            levy_incl_vat_gbp=float(pricing.amount_including_vat),
        )
    else:
        props["levy_status"] = "refused"
        if refusal is not None:
            props["levy_refusal_code"], props["levy_refusal"] = refusal.code, refusal.message
    return props


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
        props.update({name: _clean(getattr(item, name)) for name in FIGURES})
        props["nn_catchments"] = "; ".join(item.nn_catchments) or None
        props.update(_levy(item))
        props["reason_code"] = props["reason"] = None
    else:
        props["status"] = "out_of_scope"
        props.update(dict.fromkeys(FIGURES))
        props["nn_catchments"] = None
        props.update(_levy(None))
        props["reason_code"], props["reason"] = item.reason_code, item.reason
    props["synthetic_data"] = synthetic
    return props


def multipolygon(boundary: Polygon | MultiPolygon, bng: bool = False) -> dict[str, Any]:
    """The boundary as a GeoJSON MultiPolygon (a Polygon becomes a one-part MultiPolygon):
    in WGS 84 degrees with anticlockwise exteriors (RFC 7946), or as assessed with ``bng``."""
    geometry = MultiPolygon([boundary]) if isinstance(boundary, Polygon) else boundary
    if not bng:
        geometry = shapely.orient_polygons(shapely.transform(geometry, _bng_to_wgs84))
    mapped: dict[str, Any] = shapely.geometry.mapping(geometry)
    return mapped


def _bng_to_wgs84(xy: NDArray[np.float64]) -> NDArray[np.float64]:
    if not hasattr(_local, "transformer"):  # not shared between threads (pyproj's rule)
        _local.transformer = Transformer.from_crs(BNG, "EPSG:4326", always_xy=True)
    lon, lat = _local.transformer.transform(xy[:, 0], xy[:, 1])
    return np.round(np.column_stack([lon, lat]), DEGREE_DECIMALS)


def features(
    run: AssessmentRun,
    developments: Iterable[Development],
    progress: Callable[[int, int], None] | None = None,
    *,
    bng: bool = False,
) -> Iterator[dict[str, Any]]:
    """One feature per site, assessed or out of scope, in input order, made as they are read."""
    items = in_input_order(run.sites, run.out_of_scope)
    total = len(run.sites) + len(run.out_of_scope)
    synthetic = run.provenance.synthetic_data
    for done, (item, boundary) in enumerate(with_boundaries(items, developments), start=1):
        yield {
            "type": "Feature",
            "properties": site_properties(item, synthetic),
            "geometry": multipolygon(boundary, bng),
        }
        if progress is not None:
            progress(done, total)
