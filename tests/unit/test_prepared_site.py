"""The prepared-site filter answers as plain intersects and leaves the site as it found it."""

import numpy as np
import shapely
from shapely.geometry import box

from nrf.domain.prepared_site import intersecting

SITE = box(0, 0, 10, 10)
CANDIDATES = np.array(
    [
        box(2, 2, 3, 3),  # inside the site
        box(10, 0, 12, 5),  # shares the site's right edge: touching intersects
        box(11, 0, 12, 5),  # bounding boxes apart by 1 m
        box(-5, -5, 15, 15),  # swallows the site
        box(9.5, 9.5, 20, 20),  # overlaps a corner
        box(10.5, 10.5, 11, 11),  # beyond the corner
    ],
    dtype=object,
)
EXPECTED = [True, True, False, True, True, False]  # worked from the coordinates above


def test_answers_as_plain_intersects_and_leaves_the_site_unprepared() -> None:
    site = shapely.from_wkb(shapely.to_wkb(SITE))
    assert intersecting(site, CANDIDATES).tolist() == EXPECTED
    assert not shapely.is_prepared(site)


def test_a_site_prepared_by_its_caller_stays_prepared() -> None:
    site = shapely.from_wkb(shapely.to_wkb(SITE))
    shapely.prepare(site)
    assert intersecting(site, CANDIDATES).tolist() == EXPECTED
    assert shapely.is_prepared(site)


def test_one_candidate_and_none() -> None:
    assert intersecting(SITE, CANDIDATES[:1]).tolist() == [True]
    assert intersecting(SITE, CANDIDATES[2:3]).tolist() == [False]
    assert intersecting(SITE, np.array([], dtype=object)).tolist() == []
