"""Land-use figures of a site in pennies, so every method can be checked against nrf."""

from __future__ import annotations

from collections.abc import Iterable

from nrf.domain.land_use import greenspace_applies, piece_uplift
from nrf.domain.model import Development
from nrf.domain.results import OutOfScopeSite, SiteAssessment
from nrf.domain.rounding import round2
from nrf.domain.rules import RuleSet

# (area in NN catchments, N land-use uplift, P land-use uplift), each in hundredths; None when
# the site has no piece in any catchment.
Figures = tuple[int, int, int] | None
# One piece: area (m2) and the coefficients lu_curr_n, lu_curr_p, n_resi, p_resi.
PieceRow = tuple[float, float | None, float | None, float | None, float | None]


def pennies(x: float) -> int:
    return round(x * 100)


def from_pieces(dev: Development, rows: Iterable[PieceRow], rules: RuleSet) -> Figures:
    """What nrf reports for these pieces: per-piece rounding, then plain sums."""
    greenspace = greenspace_applies(round2(dev.boundary.area / rules.m2_per_ha), rules)
    area = n = p = 0.0
    any_piece = False
    for area_m2, cur_n, cur_p, resi_n, resi_p in rows:
        if not area_m2 > 0.0:
            continue
        any_piece = True
        ha = float(area_m2) / rules.m2_per_ha
        area += ha
        gn, gp = rules.greenspace_n_coeff, rules.greenspace_p_coeff
        n += piece_uplift(cur_n, resi_n, gn, ha, greenspace, rules) or 0.0
        p += piece_uplift(cur_p, resi_p, gp, ha, greenspace, rules) or 0.0
    if not any_piece:
        return None
    return pennies(round2(area)), pennies(n), pennies(p)


def from_outcome(outcome: SiteAssessment | OutOfScopeSite) -> Figures:
    if isinstance(outcome, OutOfScopeSite) or outcome.area_in_nn_catchment_ha is None:
        return None
    return (
        pennies(outcome.area_in_nn_catchment_ha),
        pennies(outcome.n_lu_uplift or 0.0),
        pennies(outcome.p_lu_uplift or 0.0),
    )


def mismatches(reference: dict[str, Figures], other: dict[str, Figures]) -> list[str]:
    """Site ids whose figures differ from the reference (only sites both methods ran)."""
    return sorted(k for k in other if k in reference and other[k] != reference[k])
