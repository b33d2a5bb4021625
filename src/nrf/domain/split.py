"""Per-catchment split of a site's impact, adding up exactly to the site's figures."""

from __future__ import annotations

import math
from collections.abc import Sequence

from nrf.domain.catchment_ids import lowest
from nrf.domain.land_use import Piece
from nrf.domain.results import CatchmentImpact
from nrf.domain.rounding import allocate_pennies, round2


def _sign(x: float) -> float:
    return (x > 0) - (x < 0)


# Long: Defra's IAT split, land use by piece and wastewater by share, in one pass.
def split_by_catchment(
    pieces: Sequence[Piece],
    *,
    n_post_suds: float,
    p_post_suds: float,
    n_uplift: float,
    p_uplift: float,
    suds_fraction: float,
    n_wwtw_perm: float,
    p_wwtw_perm: float,
    area_in_nn_ha: float,
    n_total: float,
    p_total: float,
    buffer_fraction: float,
) -> tuple[CatchmentImpact, ...]:
    """Split land use by piece and wastewater by area share, per N2K site (as Defra's IAT).

    Post-SuDS and the buffered total are linear in their inputs once the site's
    signs are fixed (post = U·(1 − f·sgn U), total = B·(1 + b·sgn B)), so each
    catchment gets the same factors as the site and the shares sum to the site
    figure; pennies left over by rounding go by largest remainder.
    ``n_wwtw_perm``/``p_wwtw_perm`` are the unrounded loads; the returned
    wastewater shares add up to their 2-dp rounding.
    """
    n_k = 1 - suds_fraction * _sign(n_uplift)
    p_k = 1 - suds_fraction * _sign(p_uplift)
    n_m = 1 + buffer_fraction * _sign(n_post_suds + n_wwtw_perm)
    p_m = 1 + buffer_fraction * _sign(p_post_suds + p_wwtw_perm)
    if pieces and all(p.n2k_site_name == pieces[0].n2k_site_name for p in pieces):
        # ~95 % of sites lie in one N2K site: the steps below on its one key, without their
        # dictionaries (~10 µs a site); the same operations, so the same bits.
        whole = math.fsum(p.area_ha for p in pieces)
        one = whole / whole if whole > 0 else 1 / 1
        n_one = sum(p.n_uplift or 0.0 for p in pieces) * n_k
        p_one = sum(p.p_uplift or 0.0 for p in pieces) * p_k
        return (
            CatchmentImpact(
                n2k_site_name=pieces[0].n2k_site_name,
                lowest_oid=lowest(dict.fromkeys(p.edp_id for p in pieces)),
                area_ha=allocate_pennies(area_in_nn_ha, [whole])[0],
                n_lu_post_suds=allocate_pennies(n_post_suds, [n_one])[0],
                p_lu_post_suds=allocate_pennies(p_post_suds, [p_one])[0],
                n_wwtw_perm=allocate_pennies(round2(n_wwtw_perm), [n_wwtw_perm * one])[0],
                p_wwtw_perm=allocate_pennies(round2(p_wwtw_perm), [p_wwtw_perm * one])[0],
                n_total=allocate_pennies(n_total, [(n_one + n_wwtw_perm * one) * n_m])[0],
                p_total=allocate_pennies(p_total, [(p_one + p_wwtw_perm * one) * p_m])[0],
            ),
        )
    # Each catchment's pieces in input order, grouped in one pass (sums keep that order).
    # A site's catchments of one N2K site are one row, whatever their labels and OIDs; its id
    # is their lowest OID (one and the same in a bundle whose N2K sites each have one OID).
    grouped: dict[str, list[Piece]] = {}
    for piece in pieces:
        grouped.setdefault(piece.n2k_site_name, []).append(piece)
    keys = sorted(grouped)
    ids = {k: lowest(p.edp_id for p in grouped[k]) for k in keys}
    if not keys:
        return ()
    area = {k: math.fsum(p.area_ha for p in grouped[k]) for k in keys}
    n_up = {k: sum(p.n_uplift or 0.0 for p in grouped[k]) for k in keys}
    p_up = {k: sum(p.p_uplift or 0.0 for p in grouped[k]) for k in keys}
    total_area = math.fsum(area.values())
    share = {k: (area[k] / total_area if total_area > 0 else 1 / len(keys)) for k in keys}

    n_lu = [n_up[k] * n_k for k in keys]
    p_lu = [p_up[k] * p_k for k in keys]
    n_ww = [n_wwtw_perm * share[k] for k in keys]
    p_ww = [p_wwtw_perm * share[k] for k in keys]
    n_tot = [(lu + ww) * n_m for lu, ww in zip(n_lu, n_ww, strict=True)]
    p_tot = [(lu + ww) * p_m for lu, ww in zip(p_lu, p_ww, strict=True)]

    columns = {
        "area_ha": allocate_pennies(area_in_nn_ha, [area[k] for k in keys]),
        "n_lu_post_suds": allocate_pennies(n_post_suds, n_lu),
        "p_lu_post_suds": allocate_pennies(p_post_suds, p_lu),
        "n_wwtw_perm": allocate_pennies(round2(n_wwtw_perm), n_ww),
        "p_wwtw_perm": allocate_pennies(round2(p_wwtw_perm), p_ww),
        "n_total": allocate_pennies(n_total, n_tot),
        "p_total": allocate_pennies(p_total, p_tot),
    }
    return tuple(
        CatchmentImpact(
            n2k_site_name=name,
            lowest_oid=ids[name],
            **{column: values[i] for column, values in columns.items()},
        )
        for i, name in enumerate(keys)
    )
