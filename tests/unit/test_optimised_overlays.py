"""The vectorised overlays give what a plain loop over the published operations gives.

Every piece, its catchment and its 2-dp uplifts are the same; an area may differ in the last
bits only (issue 20: a part crossing a catchment's edge is overlaid with the catchment's part
inside the site, the same region), never by more than 1e-12 of itself.
"""

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import box

from nrf.domain.land_use import Piece, land_use_pieces, piece_uplift
from nrf.domain.majority import majority_value
from nrf.domain.model import Boundary, CoefficientPolygon, NnCatchment, Zone
from nrf.domain.rules import RuleSet, rule_set_named
from support.random_layers import catchments as catchment_cells
from support.random_layers import cells, coefficient, site

RULES = rule_set_named("iat-2026-04")


def reference_pieces(
    boundary: Boundary,
    coefficients: list[CoefficientPolygon],
    catchments: list[NnCatchment],
    dev_area_ha: float,
    rules: RuleSet,
) -> list[Piece]:
    """The straightforward algorithm: every coefficient polygon, then every catchment."""
    greenspace = rules.greenspace_enabled and dev_area_ha >= rules.greenspace_threshold_ha
    pieces = []
    for coef in coefficients:
        if not shapely.intersects(coef.geometry, boundary):
            continue
        # issue 20: a parcel wholly inside the site is its own part (no overlay)
        inside = shapely.contains_properly(boundary, coef.geometry)
        part = coef.geometry if inside else shapely.intersection(boundary, coef.geometry)
        for nn in catchments:
            if not shapely.intersects(nn.geometry, boundary):
                continue
            area_m2 = shapely.area(shapely.intersection(part, nn.geometry))
            if not area_m2 > 0.0:
                continue
            ha = float(area_m2) / rules.m2_per_ha
            gn, gp = rules.greenspace_n_coeff, rules.greenspace_p_coeff
            pieces.append(
                Piece(
                    n2k_site_name=nn.n2k_site_name,
                    edp_id=nn.edp_id,
                    area_ha=ha,
                    n_uplift=piece_uplift(
                        coef.lu_curr_n_coeff, coef.n_resi_coeff, gn, ha, greenspace, rules
                    ),
                    p_uplift=piece_uplift(
                        coef.lu_curr_p_coeff, coef.p_resi_coeff, gp, ha, greenspace, rules
                    ),
                )
            )
    return pieces


def same_pieces(got: list[Piece], want: list[Piece]) -> bool:
    """Same pieces in the same order, uplifts exactly, areas to 1e-12 of themselves."""
    assert [(p.n2k_site_name, p.edp_id, p.n_uplift, p.p_uplift) for p in got] == [
        (p.n2k_site_name, p.edp_id, p.n_uplift, p.p_uplift) for p in want
    ]
    return all(
        math.isclose(g.area_ha, w.area_ha, rel_tol=1e-12, abs_tol=0.0)
        for g, w in zip(got, want, strict=True)
    )


def reference_majority(boundary: Boundary, zones: list[Zone]) -> str | int | None:
    """Area per value from every intersecting polygon; largest wins, ties to the smallest."""
    totals: dict[str | int, list[float]] = {}
    for zone in zones:
        if shapely.intersects(zone.geometry, boundary):
            area = float(shapely.area(shapely.intersection(zone.geometry, boundary)))
            totals.setdefault(zone.value, []).append(area)
    if not totals:
        return None
    sums = {v: math.fsum(a) for v, a in totals.items()}
    best = max(sums.values())
    return min((v for v, s in sums.items() if s == best), key=lambda v: (isinstance(v, str), v))


@pytest.mark.parametrize("seed", range(6))
def test_pieces_and_majorities_match_the_plain_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    coefficients = [coefficient(rng, g) for g in cells(rng, 400)]
    catchments = catchment_cells(rng, [("A SAC", "1"), ("B SAC", "2"), ("B SAC", "2")])
    zones = [Zone(g, int(rng.integers(1, 4))) for g in cells(rng, 12)]
    compared = 0
    for _ in range(25):
        boundary = site(rng)
        if not boundary.is_valid:
            continue
        dev_area_ha = round(boundary.area / 10_000, 2)
        got = land_use_pieces(boundary, coefficients, catchments, dev_area_ha, RULES)
        want = reference_pieces(boundary, coefficients, catchments, dev_area_ha, RULES)
        assert same_pieces(got, want)
        assert majority_value(boundary, zones) == reference_majority(boundary, zones)
        compared += bool(want)
    assert compared > 5


def test_a_parcel_wholly_inside_the_site_is_its_own_part_and_agrees_with_the_overlay() -> None:
    # Site 100 m x 100 m; parcel A 20 m x 10 m strictly inside it; parcel B shares the
    # site's west edge (not strictly inside: overlaid as before). Catchment holds all.
    # A: 20 x 10 = 200 m2 = 0.02 ha exactly, its own area; B: 30 x 100 = 3,000 m2 = 0.3 ha.
    site_box = box(1000, 1000, 1100, 1100)
    a = box(1040, 1040, 1060, 1050)
    b = box(1000, 1000, 1030, 1100)
    coefficients = [
        CoefficientPolygon(
            geometry=g, lu_curr_n_coeff=1.0, lu_curr_p_coeff=0.1, n_resi_coeff=2.0, p_resi_coeff=0.2
        )
        for g in (a, b)
    ]
    catchments = [NnCatchment(geometry=box(0, 0, 2000, 2000), n2k_site_name="A SAC", edp_id="1")]
    pieces = land_use_pieces(site_box, coefficients, catchments, 1.0, RULES)
    assert [p.area_ha for p in pieces] == [0.02, 0.3]
    # the overlay would have given the same to well below a penny of any figure
    overlay = shapely.area(shapely.intersection(site_box, a)) / 10_000
    assert math.isclose(pieces[0].area_ha, overlay, rel_tol=1e-12)
