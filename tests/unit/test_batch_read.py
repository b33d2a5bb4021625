"""A batch's reference data is read in one call per window of sites, not one call per site."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import date
from typing import Any

import attrs
from shapely.geometry import box

from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import Development
from nrf.domain.read_ahead import READ_AHEAD_HA, READ_WINDOW
from nrf.domain.rules import rule_set_named
from support.reference import STRIP_ORIGIN, two_catchment_strip

RULES = rule_set_named("iat-2026-04")
QUOTE_DATE = date(2026, 11, 26)


def sites(count: int) -> list[Development]:
    """``count`` 1 m x 10 m sites along the strip's Wensum half (x within 0-300 m)."""
    x0, y0 = STRIP_ORIGIN
    return [
        Development(
            rlb_id=n + 1,
            id=f"S-{n + 1}",
            name=f"site {n + 1}",
            dwelling_category="allocation",
            source="test",
            dwellings=5,
            boundary=box(x0 + n, y0 + 10, x0 + n + 1, y0 + 20),
        )
        for n in range(count)
    ]


def test_a_batch_is_read_in_one_call() -> None:
    repo = two_catchment_strip()
    run = AssessDevelopments(repo)(sites(245), RULES, QUOTE_DATE)
    assert repo.batches == [245]
    assert len(repo.queries) == 245  # every site's data, each read once
    assert len(run.sites) == 245


def test_a_site_maps_window_bounds_each_read() -> None:
    repo = two_catchment_strip()
    site_map = ForkedSiteMap(2, spare_cpus=lambda: 0.0, window=50)  # never forks: no spare
    run = AssessDevelopments(repo, site_map)(sites(120), RULES, QUOTE_DATE)
    assert repo.batches == [50, 50, 20]
    assert [s.site.rlb_id for s in run.sites] == list(range(1, 121))  # input order kept


def test_without_a_window_the_default_one_applies() -> None:
    repo = two_catchment_strip()
    AssessDevelopments(repo)(sites(READ_WINDOW + 3), RULES, QUOTE_DATE)
    assert repo.batches == [READ_WINDOW, 3]


def test_sites_past_the_read_ahead_budget_are_read_alone() -> None:
    """Three sites of 9,900 ha boxes (99 km x 1 km), then one small site: the budget
    (20,000 ha) takes the first two (19,800 ha) and the small one (10 m²); the third does not
    fit in the 200 ha left and is read when it is assessed."""
    assert READ_AHEAD_HA == 20_000
    x0, y0 = STRIP_ORIGIN
    big = [box(x0, y0 + 1000 * n, x0 + 99_000, y0 + 1000 * (n + 1)) for n in range(3)]
    devs = sites(4)
    devs = [
        Development(**{**attrs.asdict(d, recurse=False), "boundary": b})
        for d, b in zip(devs, [*big, devs[3].boundary], strict=True)
    ]
    repo = two_catchment_strip()
    run = AssessDevelopments(repo)(devs, RULES, QUOTE_DATE)
    assert repo.batches == [3]
    assert repo.queries == [big[0], big[1], devs[3].boundary, big[2]]
    assessed = [s.site.rlb_id for s in run.sites] + [o.site.rlb_id for o in run.out_of_scope]
    assert sorted(assessed) == [1, 2, 3, 4]


class RecordingMap:
    """A site map that says it would fork into ``parts`` and records the items it maps."""

    def __init__(self, parts: int) -> None:
        self.parts = parts
        self.items: list[int] = []

    def parts_for(self, count: int) -> int:
        return self.parts

    def __call__(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        given = list(items)
        self.items.append(len(given))
        return map(fn, given)


def test_a_window_is_one_chunk_in_one_process_and_chunks_of_twelve_where_the_map_forks() -> None:
    # 245 sites: one item of 245 in one process; 21 items (20 of 12 and one of 5) to fork.
    alone, forking = RecordingMap(1), RecordingMap(2)
    runs = [
        AssessDevelopments(two_catchment_strip(), m)(sites(245), RULES, QUOTE_DATE)
        for m in (alone, forking)
    ]
    assert alone.items == [1] and forking.items == [21]
    assert runs[0] == runs[1]  # the same figures however the window was cut
