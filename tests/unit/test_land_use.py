"""Land-use pieces, greenspace and SuDS, with figures worked by hand."""

from shapely.geometry import box

from nrf.domain.land_use import land_use_pieces, piece_uplift, post_suds
from nrf.domain.model import CoefficientPolygon, NnCatchment
from nrf.domain.rules import rule_set_named

NEW = rule_set_named("iat-2026-04")
OLD = rule_set_named("iat-2025-10")


def test_piece_uplift_without_greenspace() -> None:
    # (12.0 - 25.0) * 0.5 = -6.5
    assert piece_uplift(25.0, 12.0, 3.0, 0.5, False, NEW) == -6.5


def test_piece_uplift_with_greenspace() -> None:
    # resi' = 0.8 * 12 + 0.2 * 3 = 10.2; (10.2 - 25) * 2.5 = -37.0
    assert piece_uplift(25.0, 12.0, 3.0, 2.5, True, NEW) == -37.0
    # P: resi' = 0.8 * 0.5 + 0.2 * 0.2 = 0.44; (0.44 - 0.24) * 3.05 = 0.61
    assert piece_uplift(0.24, 0.5, 0.2, 3.05, True, NEW) == 0.61


def test_missing_coefficient_gives_no_uplift() -> None:
    assert piece_uplift(None, 12.0, 3.0, 1.0, False, NEW) is None
    assert piece_uplift(5.0, None, 3.0, 1.0, False, NEW) is None


def test_suds_only_from_fifty_dwellings_under_the_new_rules() -> None:
    # -125.57 - 125.57 * 0.25 = -156.9625 -> -156.96 (a negative uplift gets more negative)
    assert post_suds(-125.57, 272, NEW) == -156.96
    assert post_suds(14.12, 19, NEW) == 14.12
    # 14.12 - 3.53 = 10.59 under the October 2025 rules, which apply SuDS everywhere
    assert post_suds(14.12, 19, OLD) == 10.59
    # 49 dwellings: no SuDS; a float sum's noise (2.4699999999999998) is rounded to 2.47.
    assert post_suds(2.4699999999999998, 49, NEW) == 2.47


def test_pieces_are_site_cut_by_coefficient_polygon_and_catchment() -> None:
    site = box(0, 0, 100, 100)  # 1.00 ha
    coefficients = [
        CoefficientPolygon(
            geometry=box(-50, -50, 50, 150),
            lu_curr_n_coeff=20.0,
            lu_curr_p_coeff=1.0,
            n_resi_coeff=10.0,
            p_resi_coeff=0.5,
        ),  # left half
        CoefficientPolygon(
            geometry=box(50, -50, 150, 150),
            lu_curr_n_coeff=8.0,
            lu_curr_p_coeff=0.2,
            n_resi_coeff=10.0,
            p_resi_coeff=0.5,
        ),  # right half
    ]
    catchments = [
        NnCatchment(geometry=box(-100, -100, 75, 200), n2k_site_name="River Wensum SAC", edp_id="1")
    ]
    # Greenspace applies (1.00 ha >= 1.00): resi' N = 8.6, P = 0.44.
    pieces = land_use_pieces(site, coefficients, catchments, 1.0, NEW)
    assert [p.area_ha for p in pieces] == [0.5, 0.25]
    # left: (8.6 - 20) * 0.5 = -5.7; right: (8.6 - 8) * 0.25 = 0.15
    assert [p.n_uplift for p in pieces] == [-5.7, 0.15]
    # left: (0.44 - 1.0) * 0.5 = -0.28; right: (0.44 - 0.2) * 0.25 = 0.06
    assert [p.p_uplift for p in pieces] == [-0.28, 0.06]
    assert {p.n2k_site_name for p in pieces} == {"River Wensum SAC"}


def test_no_catchment_no_pieces() -> None:
    site = box(0, 0, 100, 100)
    coefficients = [
        CoefficientPolygon(
            geometry=box(0, 0, 100, 100),
            lu_curr_n_coeff=20.0,
            lu_curr_p_coeff=1.0,
            n_resi_coeff=10.0,
            p_resi_coeff=0.5,
        )
    ]
    far = [
        NnCatchment(geometry=box(500, 500, 600, 600), n2k_site_name="The Broads SAC", edp_id="2")
    ]
    assert land_use_pieces(site, coefficients, far, 1.0, NEW) == []
