"""The facts the worker tests' hand-worked figures rest on, read from the bundle with GDAL.

The worker tests check the real worker's figures for the sample site against values worked by
hand from a handful of bundle rows (tests/support/worker_sample_site.py). This reads those rows
with pyogrio (GDAL's GeoPackage driver), not with nrf's own reader, so a changed bundle or
default rule set fails here, naming the fact, rather than as an unexplained figure there.
"""

from __future__ import annotations

from typing import Any

import pytest
from pyogrio.raw import read
from shapely import Polygon, from_wkb

from nrf.adapters.boundary_data.packaged import bundled_reference_data
from nrf.domain.rules import rule_set_named
from support.worker_jobs import SITE_RING
from support.worker_sample_site import (
    BUNDLE_NAME,
    COEFFICIENTS,
    EDP_ID,
    FALLBACK_PERMIT,
    FALLBACK_WWTW_ID,
    LEVY_CHARGE,
    NN_CATCHMENT,
    OCCUPANCY,
    SITE_AREA_M2,
)

SITE = Polygon(SITE_RING)


def rows(layer: str, spatial: bool = False) -> list[tuple[dict[str, Any], Any]]:
    """(fields, geometry) of every row; for a spatial layer only those touching the site."""
    meta, _, geometry, columns = read(
        str(bundled_reference_data()),
        layer=layer,
        read_geometry=spatial,
        bbox=SITE.bounds if spatial else None,
    )
    names = list(meta["fields"])
    found = []
    for i in range(len(columns[0]) if columns else 0):
        fields = {name: _plain(columns[k][i]) for k, name in enumerate(names)}
        shape = from_wkb(geometry[i]) if spatial else None
        if shape is None or shape.intersects(SITE):
            found.append((fields, shape))
    return found


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones, so they compare and print plainly."""
    return value.item() if hasattr(value, "item") else value


def test_the_area_is_the_shoelace_area_of_the_ring() -> None:
    # Shoelace on the ring, by hand from its four corners (shapely only checks it).
    (x1, y1), (x2, y2), (x3, y3), (x4, y4) = SITE_RING[:4]
    twice = (x1 * y2 - x2 * y1) + (x2 * y3 - x3 * y2) + (x3 * y4 - x4 * y3) + (x4 * y1 - x1 * y4)
    assert abs(twice) / 2 == pytest.approx(SITE_AREA_M2, abs=1e-4)
    assert SITE.area == pytest.approx(SITE_AREA_M2, abs=1e-5)


def test_the_site_lies_wholly_in_one_coefficient_polygon_and_one_nn_catchment() -> None:
    [(coefficients, polygon)] = rows("land_use_coefficients", spatial=True)
    assert polygon.contains(SITE)
    assert coefficients == COEFFICIENTS
    [(catchment, area)] = rows("nn_catchments", spatial=True)
    assert area.contains(SITE)
    assert catchment == NN_CATCHMENT


def test_no_works_catchment_so_the_fallback_works_and_its_permit() -> None:
    assert rows("wwtw_catchments", spatial=True) == []
    assert rule_set_named(None).fallback_wwtw_id == FALLBACK_WWTW_ID
    [permit] = [f for f, _ in rows("wwtw_permits") if f["wwtw_id"] == str(FALLBACK_WWTW_ID)]
    assert {k: permit[k] for k in FALLBACK_PERMIT} == FALLBACK_PERMIT


def test_the_occupancy_row_the_edp_its_charge_and_the_bundle_name() -> None:
    occupancy = [f for f, _ in rows("occupancy_rates")]
    categories = {str(f["dwelling_category"]).casefold() for f in occupancy}
    assert "housing" not in categories, "a housing row would win over the catchment's"
    [wensum] = [f for f in occupancy if f["nn_catchment"] == NN_CATCHMENT["n2k_site_name"]]
    assert {k: wensum[k] for k in OCCUPANCY} == OCCUPANCY
    [edp] = [f for f, _ in rows("edp_boundaries", spatial=True)]
    assert edp["edp_id"] == EDP_ID
    [charge] = [f for f, _ in rows("levy_charges") if f["edp_id"] == EDP_ID]
    assert {k: charge[k] for k in LEVY_CHARGE} == LEVY_CHARGE
    [vat] = [f for f, _ in rows("levy_settings") if f["key"] == "vat_rate"]
    assert vat["value"] == "0.20"
    [info] = [f for f, _ in rows("bundle_info")]
    assert info["name"] == BUNDLE_NAME


def test_the_default_rule_set_is_the_one_the_figures_are_worked_under() -> None:
    rules = rule_set_named(None)
    assert rules.name == "iat-2026-04"
    assert (rules.wwtw_operating_factor, rules.suds_min_dwellings) == (0.9, 50)
    assert (rules.greenspace_enabled, rules.greenspace_threshold_ha) == (True, 1.0)
    assert (rules.buffer_percent, rules.days_per_year) == (20.0, 365.25)
