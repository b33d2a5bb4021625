"""A window's land-use pieces in a few vectorised calls, not ~25 small calls per site.

``land_use_pieces`` asks numpy and GEOS a couple of dozen small questions per site, whose own
cost was ~10 % of a 245-site batch (issue 32). Here the window asks each once: which NN
catchments each site meets and lies wholly inside, every site ∩ parcel overlay, every part's
area, every piece's uplift. A site some met catchment does not hold whole still goes through
``piece_areas`` alone. The operations per piece are those of ``land_use_pieces``, in the same
order, so the pieces are the same to the bit (tests/unit/test_window_pieces.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import shapely
from numpy.typing import NDArray

from nrf.domain.land_use import Piece, greenspace_applies, piece_areas
from nrf.domain.model import Boundary, NnCatchment, SiteReferenceData
from nrf.domain.rules import RuleSet
from nrf.domain.site_outlines import SiteOutlines

# A site's parcels met (indices into its parcels) and, for each, whether it holds it whole.
Meetings: TypeAlias = tuple[NDArray[np.intp], NDArray[np.bool_]]


def slices_of(counts: list[int]) -> list[slice]:
    """Where each site's run of ``counts[i]`` pairs lies in the window's arrays."""
    ends = itertools.accumulate(counts)
    return [slice(end - count, end) for count, end in zip(counts, ends, strict=True)]


def _told_outlines(
    sites: NDArray[np.object_], refs: Sequence[SiteReferenceData], asked: list[int]
) -> tuple[list[SiteOutlines], dict[int, NDArray[np.intp]]]:
    """Each site's ``SiteOutlines``, told for the ``asked`` sites whether each NN catchment
    near meets it and holds it whole; and the catchments each asked site meets."""
    outlines = [SiteOutlines(boundary) for boundary in sites]
    counts = [len(refs[i].nn_catchments) for i in asked]
    geoms = np.array([c.geometry for i in asked for c in refs[i].nn_catchments], dtype=object)
    pairs = np.repeat(sites[asked], counts)
    met = np.asarray(shapely.intersects(geoms, pairs), dtype=bool)
    held = np.zeros(len(geoms), dtype=bool)
    hits = np.flatnonzero(met)
    held[hits] = shapely.contains_properly(geoms[hits], pairs[hits])
    met_by_site: dict[int, NDArray[np.intp]] = {}
    for i, part in zip(asked, slices_of(counts), strict=True):
        outlines[i].seed(geoms[part], met[part], held[part])
        met_by_site[i] = np.flatnonzero(met[part])
    return outlines, met_by_site


def _uplifts(
    values: list[tuple[float | None, ...]], greenspace: NDArray[np.bool_], rules: RuleSet
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each part's N and P rate (resi' − current), NaN where a coefficient is missing, with
    ``piece_uplift``'s operations: resi × (1 − f) + f × greenspace coefficient, then − current."""
    table = np.array(values, dtype=float).reshape(len(values), 4)  # None is NaN
    curr_n, curr_p, resi_n, resi_p = table.T
    fraction = rules.greenspace_percent / 100
    adjusted_n = resi_n * (1 - fraction) + fraction * rules.greenspace_n_coeff
    adjusted_p = resi_p * (1 - fraction) + fraction * rules.greenspace_p_coeff
    n_rate = np.where(greenspace, adjusted_n, resi_n) - curr_n
    p_rate = np.where(greenspace, adjusted_p, resi_p) - curr_p
    return n_rate, p_rate


def _rounded(rate: NDArray[np.float64], area_ha: NDArray[np.float64]) -> list[float | None]:
    """round2(rate × area) per piece, None for a missing rate; ``+ 0.0`` makes numpy's −0.0
    the 0.0 Python's ``round`` gives."""
    exact = rate * area_ha
    rounded = np.where(np.isfinite(exact), np.rint(exact * 100.0) / 100.0 + 0.0, exact)
    return [None if value != value else value for value in rounded.tolist()]


# Long: the window's stages in order (catchments, overlays, areas, uplifts), each one call.
def window_pieces(
    boundaries: Sequence[Boundary],
    refs: Sequence[SiteReferenceData],
    meetings: Sequence[Meetings],
    dev_areas_ha: Sequence[float],
    rules: RuleSet,
) -> tuple[list[list[Piece]], list[SiteOutlines]]:
    """Each site's ``land_use_pieces`` and its ``SiteOutlines`` (told about its catchments),
    given each site's parcels met and held wholly (``first_pass``)."""
    sites = np.empty(len(boundaries), dtype=object)
    sites[:] = list(boundaries)
    asked = [i for i, ref in enumerate(refs) if len(ref.coefficients) and ref.nn_catchments]
    outlines, met_nn = _told_outlines(sites, refs, asked)
    work = [i for i in asked if met_nn[i].size and meetings[i][0].size]
    counts = [int(meetings[i][0].size) for i in work]
    empty = np.empty(0, dtype=object)
    geoms = np.concatenate(
        [empty, *(refs[i].coefficients.geometries[meetings[i][0]] for i in work)]
    )
    inside = np.concatenate([np.empty(0, dtype=bool), *(meetings[i][1] for i in work)])
    # (site ∩ coefficient) for every part the site does not hold whole, in one overlay call.
    parts = geoms.copy()
    cut = np.flatnonzero(~inside)
    parts[cut] = shapely.intersection(np.repeat(sites[work], counts)[cut], geoms[cut])
    part_area = np.zeros(len(parts))
    present = np.flatnonzero(~shapely.is_empty(parts))
    part_area[present] = shapely.area(parts[present])
    # Every piece in order: (part, catchment, m²), part by part, catchment by catchment.
    rows: list[int] = []
    chosen: list[NnCatchment] = []
    areas: list[float] = []
    per_site: dict[int, int] = {}
    for i, part in zip(work, slices_of(counts), strict=True):
        catchments = refs[i].nn_catchments
        met = [catchments[j] for j in met_nn[i].tolist()]
        site = outlines[i]
        holds = np.fromiter((site.wholly_inside(c.geometry) for c in met), bool, len(met))
        before = len(rows)
        if holds.all():
            for row, area in enumerate(part_area[part].tolist(), start=part.start):
                if area > 0.0:
                    for nn in met:
                        rows.append(row)
                        chosen.append(nn)
                        areas.append(area)
        else:
            met_geoms = np.array([c.geometry for c in met], dtype=object)
            matrix = piece_areas(parts[part], met_geoms, holds, site.part_inside)
            at, columns = np.nonzero(matrix > 0.0)
            rows += (at + part.start).tolist()
            chosen += [met[j] for j in columns.tolist()]
            areas += matrix[at, columns].tolist()
        per_site[i] = len(rows) - before
    pieces: list[list[Piece]] = [[] for _ in boundaries]
    if not rows:
        return pieces, outlines
    green = np.repeat(
        np.array([greenspace_applies(dev_areas_ha[i], rules) for i in work], dtype=bool), counts
    )
    values = [refs[i].coefficients.values[j] for i in work for j in meetings[i][0].tolist()]
    n_rate, p_rate = _uplifts(values, green, rules)
    at_rows = np.array(rows, dtype=np.intp)
    area_ha = np.array(areas) / rules.m2_per_ha
    n_up, p_up = _rounded(n_rate[at_rows], area_ha), _rounded(p_rate[at_rows], area_ha)
    made = [
        Piece(n2k_site_name=nn.n2k_site_name, edp_id=nn.edp_id, area_ha=ha, n_uplift=n, p_uplift=p)
        for nn, ha, n, p in zip(chosen, area_ha.tolist(), n_up, p_up, strict=True)
    ]
    start = 0
    for i in work:
        pieces[i] = made[start : start + per_site[i]]
        start += per_site[i]
    return pieces, outlines
