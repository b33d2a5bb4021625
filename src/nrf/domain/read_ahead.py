"""A window of sites read ahead as one batch, and mapped a chunk at a time, each chunk's
predicates and overlays asked in one pass (issue 32)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from nrf.domain.first_pass import FirstPass, first_pass
from nrf.domain.model import Development, SiteReferenceData
from nrf.domain.ports import BoundaryDataRepository
from nrf.domain.rules import RuleSet

READ_WINDOW = 2048  # sites read as one batch unless the site map has a window of its own
# Hectares of site boxes read ahead per window: ~8,000 parcels of 2.4 ha (the synthetic layer's
# mean), about what one site of the largest allowed area (10,000 ha) reads alone; the boxes of
# the 245 Broads & Wensum samples add up to 5,819 ha.
READ_AHEAD_HA = 20_000.0

# A site of a window and its reference data when read ahead (else None: read alone).
Read: TypeAlias = tuple[Development, SiteReferenceData | None]
# Sites mapped as one item when the map forks: each chunk's first pass is one pass, and a
# forked child gets whole chunks (in one process the whole window is one chunk: ~5 % less CPU).
CHUNK = 12


def read_ahead(repository: BoundaryDataRepository, window: Sequence[Development]) -> list[Read]:
    """Each site with its reference data, read as one batch for the sites whose boxes add up
    to at most ``READ_AHEAD_HA``; past that, None: the site is read alone when assessed, so
    a window of very large sites never holds all their parcels at once."""
    budget = READ_AHEAD_HA * 10_000.0
    chosen: list[int] = []
    for index, dev in enumerate(window):
        minx, miny, maxx, maxy = dev.boundary.bounds
        box_m2 = (maxx - minx) * (maxy - miny)
        if box_m2 <= budget:
            budget -= box_m2
            chosen.append(index)
    refs: list[SiteReferenceData | None] = [None] * len(window)
    read = repository.references_for([window[i].boundary for i in chosen])
    for index, ref in zip(chosen, read, strict=True):
        refs[index] = ref
    return list(zip(window, refs, strict=True))


def chunked(items: list[Read], parts_for: Callable[[int], int]) -> list[list[Read]]:
    """A window's sites as the items to map, each chunk's predicates, overlays and uplifts
    then asked in one pass (``first_passes``): the whole window in one process, chunks of
    ``CHUNK`` sites where the map would fork (``parts_for``), so each child takes its share."""
    size = CHUNK if parts_for(-(-len(items) // CHUNK)) > 1 else max(1, len(items))
    return [items[at : at + size] for at in range(0, len(items), size)]


def first_passes(
    items: Sequence[Read], rules: RuleSet
) -> list[tuple[Development, SiteReferenceData | None, FirstPass | None]]:
    """Each site with its ``FirstPass``, asked for the chunk's read sites at once (None for a
    site read alone, or one read site on its own: asked alone, it is cheaper)."""
    read = [(index, dev, ref) for index, (dev, ref) in enumerate(items) if ref is not None]
    passes: list[FirstPass | None] = [None] * len(items)
    if len(read) > 1:
        asked = first_pass([dev.boundary for _, dev, _ in read], [ref for _, _, ref in read], rules)
        for (index, _, _), first in zip(read, asked, strict=True):
            passes[index] = first
    return [(dev, ref, first) for (dev, ref), first in zip(items, passes, strict=True)]
