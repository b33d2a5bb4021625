"""Land-use uplift: site ∩ coefficient polygon ∩ NN catchment, one rounded figure per piece."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from attrs import frozen

from nrf.domain.model import Boundary, CoefficientPolygon, NnCatchment
from nrf.domain.rounding import round2
from nrf.domain.rules import RuleSet


@frozen
class Piece:
    """One piece of a site inside one coefficient polygon and one NN catchment."""

    n2k_site_name: str
    edp_id: str
    area_ha: float
    n_uplift: float | None  # None where the coefficient polygon has no N values
    p_uplift: float | None


def _adjusted_resi(resi: float, greenspace_coeff: float, rules: RuleSet) -> float:
    # Same operation order as the published tool, so the binary result is identical.
    fraction = rules.greenspace_percent / 100
    return resi * (1 - fraction) + fraction * greenspace_coeff


def piece_uplift(
    current: float | None,
    resi: float | None,
    greenspace_coeff: float,
    area_ha: float,
    greenspace: bool,
    rules: RuleSet,
) -> float | None:
    """round2((resi' − current) × area) for one piece; None when a coefficient is missing."""
    if current is None or resi is None:
        return None
    adjusted = _adjusted_resi(resi, greenspace_coeff, rules) if greenspace else resi
    return round2((adjusted - current) * area_ha)


def greenspace_applies(dev_area_ha: float, rules: RuleSet) -> bool:
    """The greenspace adjustment uses the site area already rounded to 2 dp."""
    return rules.greenspace_enabled and dev_area_ha >= rules.greenspace_threshold_ha


def land_use_pieces(
    boundary: Boundary,
    coefficients: Sequence[CoefficientPolygon],
    catchments: Sequence[NnCatchment],
    dev_area_ha: float,
    rules: RuleSet,
) -> list[Piece]:
    """Every piece of positive area, in coefficient order then catchment order."""
    if not coefficients or not catchments:
        return []
    nn_geoms = np.array([c.geometry for c in catchments], dtype=object)
    nn_hits = np.flatnonzero(shapely.intersects(nn_geoms, boundary))
    if nn_hits.size == 0:
        return []
    coef_geoms = np.array([c.geometry for c in coefficients], dtype=object)
    coef_hits = np.flatnonzero(shapely.intersects(coef_geoms, boundary))
    if coef_hits.size == 0:
        return []
    # (site ∩ coefficient) ∩ catchment, the order the published tool intersects in.
    site_parts = shapely.intersection(boundary, coef_geoms[coef_hits])
    greenspace = greenspace_applies(dev_area_ha, rules)
    # Every (part, catchment) overlay in one call, row-major: the same GEOS operations
    # as a loop over parts then catchments, so the areas are bit-for-bit the same.
    nn_hit_geoms = nn_geoms[nn_hits]
    areas_m2 = shapely.area(shapely.intersection(site_parts[:, np.newaxis], nn_hit_geoms))
    pieces: list[Piece] = []
    for part_index, nn_pos in zip(*np.nonzero(areas_m2 > 0.0), strict=True):
        coef = coefficients[int(coef_hits[part_index])]
        nn = catchments[int(nn_hits[nn_pos])]
        area_ha = float(areas_m2[part_index, nn_pos]) / rules.m2_per_ha
        pieces.append(
            Piece(
                n2k_site_name=nn.n2k_site_name,
                edp_id=nn.edp_id,
                area_ha=area_ha,
                n_uplift=piece_uplift(
                    coef.lu_curr_n_coeff,
                    coef.n_resi_coeff,
                    rules.greenspace_n_coeff,
                    area_ha,
                    greenspace,
                    rules,
                ),
                p_uplift=piece_uplift(
                    coef.lu_curr_p_coeff,
                    coef.p_resi_coeff,
                    rules.greenspace_p_coeff,
                    area_ha,
                    greenspace,
                    rules,
                ),
            )
        )
    return pieces


def suds_applies(dwellings: int, rules: RuleSet) -> bool:
    return dwellings >= rules.suds_min_dwellings


def post_suds(uplift: float, dwellings: int, rules: RuleSet) -> float:
    """round2(uplift − |uplift| × removal) where SuDS applies, else round2(uplift).

    A negative uplift becomes more negative: the published tool does this on purpose.
    """
    if not suds_applies(dwellings, rules):
        return round2(uplift)
    return round2(uplift - abs(uplift) * (rules.suds_removal_percent / 100))
