"""A window's pieces are each site's ``land_use_pieces``, to the bit, whatever the window."""

import numpy as np
import pytest
import shapely
from shapely.geometry import box

from nrf.domain.land_use import land_use_pieces
from nrf.domain.model import CoefficientPolygon, NnCatchment, SiteReferenceData
from nrf.domain.prepared_site import meeting_and_inside
from nrf.domain.rounding import round2
from nrf.domain.rules import rule_set_named
from nrf.domain.site_outlines import SiteOutlines
from nrf.domain.window_pieces import window_pieces
from support.random_layers import catchments as catchment_cells
from support.random_layers import cells, coefficient, site

RULES = rule_set_named("iat-2026-04")


def reference(
    boundary: shapely.Geometry, nn: list[NnCatchment], parcels: list
) -> SiteReferenceData:
    return SiteReferenceData(
        nn_catchments=tuple(nn),
        wwtw_catchments=(),
        lpa_boundaries=(),
        subcatchments=(),
        coefficients=parcels,
    )


def pieces_of_window(refs: list[SiteReferenceData], boundaries: list) -> list:
    meetings = [
        meeting_and_inside(b, ref.coefficients.geometries)
        for b, ref in zip(boundaries, refs, strict=True)
    ]
    areas = [round2(b.area / RULES.m2_per_ha) for b in boundaries]
    pieces, _ = window_pieces(boundaries, refs, meetings, areas, RULES)
    return pieces


@pytest.mark.parametrize("seed", range(8))
def test_every_site_of_a_window_gets_its_own_pieces_to_the_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parcels = [coefficient(rng, g) for g in cells(rng, 300)]
    # Three catchments that sites cross, and (in odd seeds) one holding the whole extent.
    catchments = catchment_cells(rng, [("A SAC", "1"), ("B SAC", "2"), ("B SAC", "3")])
    if seed % 2:
        catchments.append(
            NnCatchment(geometry=box(-10, -10, 2010, 2010), n2k_site_name="C SAC", edp_id="4")
        )
    boundaries = [b for b in (site(rng) for _ in range(30)) if b.is_valid]
    refs = []
    for k, boundary in enumerate(boundaries):
        near = [p for p in parcels if shapely.intersects(box(*boundary.bounds), p.geometry)]
        # Some sites with no parcels or no catchments, as at a window's edges.
        refs.append(
            reference(boundary, [] if k % 11 == 5 else catchments, [] if k % 13 == 7 else near)
        )
    got = pieces_of_window(refs, boundaries)
    for boundary, ref, pieces in zip(boundaries, refs, got, strict=True):
        dev_area_ha = round2(boundary.area / RULES.m2_per_ha)
        alone = land_use_pieces(
            boundary,
            ref.coefficients,
            ref.nn_catchments,
            dev_area_ha,
            RULES,
            SiteOutlines(boundary),
        )
        assert pieces == alone  # every field, floats compared exactly
    assert sum(map(len, got)) > 50


def test_an_uplift_that_rounds_to_nothing_is_zero_not_minus_zero() -> None:
    # A 0.5 ha site (under the 1 ha greenspace threshold) holding a 0.24 ha parcel: N rate
    # 10.000 − 10.001 = −0.001 kg/ha/yr, × 0.24 ha = −0.00024, which rounds to 0.00. Python's
    # round gives +0.0; numpy's rint gives −0.0, which would print as "-0.0".
    boundary = box(0, 0, 100, 50)
    parcel = CoefficientPolygon(
        geometry=box(10, 10, 90, 40),
        lu_curr_n_coeff=10.001,
        lu_curr_p_coeff=1.0,
        n_resi_coeff=10.0,
        p_resi_coeff=1.0,
    )
    nn = [NnCatchment(geometry=box(-100, -100, 300, 300), n2k_site_name="A SAC", edp_id="1")]
    ref = reference(boundary, nn, [parcel])
    pieces = pieces_of_window([ref, ref], [boundary, box(0, 0, 100, 50)])[0]
    assert [(p.area_ha, p.n_uplift, p.p_uplift) for p in pieces] == [(0.24, 0.0, 0.0)]
    assert str(pieces[0].n_uplift) == "0.0"  # not "-0.0"
    assert pieces == land_use_pieces(boundary, ref.coefficients, nn, 0.5, RULES)
