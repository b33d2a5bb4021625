"""The per-catchment split, on asymmetric sites worked by hand."""

from __future__ import annotations

from nrf.domain.land_use import Piece
from nrf.domain.split import split_by_catchment

WENSUM, BROADS = ("River Wensum SAC", "1"), ("The Broads SAC", "2")


def piece(where: tuple[str, str], area_ha: float, n: float, p: float) -> Piece:
    return Piece(n2k_site_name=where[0], edp_id=where[1], area_ha=area_ha, n_uplift=n, p_uplift=p)


def test_wastewater_is_shared_by_area_not_equally() -> None:
    # 3 ha in the Broads, 1 ha in the Wensum; no land-use change, so all is wastewater.
    pieces = [piece(BROADS, 3.0, 0.0, 0.0), piece(WENSUM, 1.0, 0.0, 0.0)]
    # Site: N wastewater 8.00, P 0.40; totals with the 20 % buffer: 9.60 and 0.48.
    # Catchments come out sorted by name: the Wensum, then the Broads.
    wensum, broads = split_by_catchment(
        pieces,
        n_post_suds=0.0,
        p_post_suds=0.0,
        n_uplift=0.0,
        p_uplift=0.0,
        suds_fraction=0.25,
        n_wwtw_perm=8.0,
        p_wwtw_perm=0.4,
        area_in_nn_ha=4.0,
        n_total=9.6,
        p_total=0.48,
        buffer_fraction=0.2,
    )
    assert (broads.n2k_site_name, wensum.n2k_site_name) == ("The Broads SAC", "River Wensum SAC")
    # Area shares 3/4 and 1/4: N 8.00 → 6.00 and 2.00; P 0.40 → 0.30 and 0.10.
    assert (broads.area_ha, wensum.area_ha) == (3.0, 1.0)
    assert (broads.n_wwtw_perm, wensum.n_wwtw_perm) == (6.0, 2.0)
    assert (broads.p_wwtw_perm, wensum.p_wwtw_perm) == (0.3, 0.1)
    # Totals ×1.2: N 7.20 and 2.40; P 0.36 and 0.12.
    assert (broads.n_total, wensum.n_total) == (7.2, 2.4)
    assert (broads.p_total, wensum.p_total) == (0.36, 0.12)


def test_a_net_reduction_gets_the_buffer_with_its_sign() -> None:
    # Land use falls: Broads −30 N / −3 P on 3 ha, Wensum −10 N / −1 P on 1 ha; no wastewater.
    pieces = [piece(BROADS, 3.0, -30.0, -3.0), piece(WENSUM, 1.0, -10.0, -1.0)]
    # SuDS on a negative uplift: ×(1 + 0.25): N −40 → −50.00, P −4 → −5.00 for the site.
    # Buffer on a negative total: ×(1 − 0.2): N −50 → −40.00, P −5 → −4.00.
    # Catchments come out sorted by name: the Wensum, then the Broads.
    wensum, broads = split_by_catchment(
        pieces,
        n_post_suds=-50.0,
        p_post_suds=-5.0,
        n_uplift=-40.0,
        p_uplift=-4.0,
        suds_fraction=0.25,
        n_wwtw_perm=0.0,
        p_wwtw_perm=0.0,
        area_in_nn_ha=4.0,
        n_total=-40.0,
        p_total=-4.0,
        buffer_fraction=0.2,
    )
    # Post-SuDS: Broads −30 × 1.25 = −37.50, Wensum −10 × 1.25 = −12.50.
    assert (broads.n_lu_post_suds, wensum.n_lu_post_suds) == (-37.5, -12.5)
    assert (broads.p_lu_post_suds, wensum.p_lu_post_suds) == (-3.75, -1.25)
    # Totals: −37.50 × 0.8 = −30.00 and −12.50 × 0.8 = −10.00 (they add up to −40.00).
    assert (broads.n_total, wensum.n_total) == (-30.0, -10.0)
    # P: −3.75 × 0.8 = −3.00 and −1.25 × 0.8 = −1.00.
    assert (broads.p_total, wensum.p_total) == (-3.0, -1.0)


def test_every_catchment_takes_the_sites_signs_not_its_own() -> None:
    # Land use rises in the Broads (+20 N / +1 P on 1 ha) and falls in the Wensum (−8 N / −0.4 P
    # on 3 ha): the site rises, N 20 − 8 = 12, P 1 − 0.4 = 0.6.
    pieces = [piece(BROADS, 1.0, 20.0, 1.0), piece(WENSUM, 3.0, -8.0, -0.4)]
    # Site: SuDS on a rise ×0.75: N 9.00, P 0.45; wastewater N 4.00, P 0.20;
    # totals (9 + 4) × 1.2 = 15.60 and (0.45 + 0.20) × 1.2 = 0.78.
    site = {"n_post_suds": 9.0, "p_post_suds": 0.45, "n_uplift": 12.0, "p_uplift": 0.6}
    loads = {"n_wwtw_perm": 4.0, "p_wwtw_perm": 0.2, "n_total": 15.6, "p_total": 0.78}
    wensum, broads = split_by_catchment(
        pieces, suds_fraction=0.25, buffer_fraction=0.2, area_in_nn_ha=4.0, **site, **loads
    )
    # Post-SuDS ×0.75 for both, the Wensum's fall too (not ×1.25): 20 → 15.00, −8 → −6.00;
    # P 1 → 0.75, −0.4 → −0.30. They add up to the site's 9.00 and 0.45.
    assert (broads.n_lu_post_suds, wensum.n_lu_post_suds) == (15.0, -6.0)
    assert (broads.p_lu_post_suds, wensum.p_lu_post_suds) == (0.75, -0.3)
    # Wastewater by area, 1/4 and 3/4: N 1.00 and 3.00; P 0.05 and 0.15.
    assert (broads.n_wwtw_perm, wensum.n_wwtw_perm) == (1.0, 3.0)
    assert (broads.p_wwtw_perm, wensum.p_wwtw_perm) == (0.05, 0.15)
    # Buffer ×1.2 for both, though the Wensum's own base is negative (not ×0.8):
    # N (15 + 1) × 1.2 = 19.20 and (−6 + 3) × 1.2 = −3.60 (sum 15.60);
    # P (0.75 + 0.05) × 1.2 = 0.96 and (−0.30 + 0.15) × 1.2 = −0.18 (sum 0.78).
    assert (broads.n_total, wensum.n_total) == (19.2, -3.6)
    assert (broads.p_total, wensum.p_total) == (0.96, -0.18)


def test_a_site_in_one_catchment_keeps_its_own_figures_and_lowest_oid() -> None:
    # Three pieces, all in the Broads (two drawn under OID 10, one under 9): 1.5 + 2.25 + 0.25
    # = 4.00 ha; land use N 6.10 − 1.10 + 0.00 = 5.00, P 0.30 + 0.20 − 0.10 = 0.40.
    pieces = [
        Piece(n2k_site_name="The Broads SAC", edp_id="10", area_ha=1.5, n_uplift=6.1, p_uplift=0.3),
        Piece(
            n2k_site_name="The Broads SAC", edp_id="9", area_ha=2.25, n_uplift=-1.1, p_uplift=0.2
        ),
        Piece(
            n2k_site_name="The Broads SAC", edp_id="10", area_ha=0.25, n_uplift=0.0, p_uplift=-0.1
        ),
    ]
    # Site (SuDS ×0.75 on the rise): N 3.75, P 0.30; wastewater (unrounded loads) N 2.345 →
    # 2.35 (×100 is 234.50000000000003 in binary), P 0.111 → 0.11; totals (3.75 + 2.345) × 1.2
    # = 7.314 → 7.31, (0.30 + 0.111) × 1.2 = 0.4932 → 0.49.
    (broads,) = split_by_catchment(
        pieces,
        n_post_suds=3.75,
        p_post_suds=0.3,
        n_uplift=5.0,
        p_uplift=0.4,
        suds_fraction=0.25,
        n_wwtw_perm=2.345,
        p_wwtw_perm=0.111,
        area_in_nn_ha=4.0,
        n_total=7.31,
        p_total=0.49,
        buffer_fraction=0.2,
    )
    # The one row is the site: the lowest OID is 9 (as a number, not text: "10" < "9").
    assert (broads.n2k_site_name, broads.lowest_oid) == ("The Broads SAC", "9")
    assert broads.area_ha == 4.0
    assert (broads.n_lu_post_suds, broads.p_lu_post_suds) == (3.75, 0.3)
    assert (broads.n_wwtw_perm, broads.p_wwtw_perm) == (2.35, 0.11)
    assert (broads.n_total, broads.p_total) == (7.31, 0.49)
