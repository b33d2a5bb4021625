"""Majority assignment sums areas per value and breaks ties deterministically."""

from shapely.geometry import box

from nrf.domain.majority import majority_value
from nrf.domain.model import Zone

SITE = box(0, 0, 100, 100)


def test_value_split_over_several_polygons_beats_the_largest_single_polygon() -> None:
    zones = [
        Zone(box(0, 0, 40, 100), 7),  # 40 % of the site
        Zone(box(40, 0, 70, 100), 3),  # 30 %, same value as the next
        Zone(box(70, 0, 100, 100), 3),  # 30 % -> value 3 covers 60 %
    ]
    assert majority_value(SITE, zones) == 3


def test_tie_goes_to_the_smallest_value_whatever_the_order() -> None:
    a = Zone(box(0, 0, 50, 100), 1065)
    b = Zone(box(50, 0, 100, 100), 1001)
    assert majority_value(SITE, [a, b]) == 1001
    assert majority_value(SITE, [b, a]) == 1001
    left = Zone(box(0, 0, 50, 100), "Yare")
    right = Zone(box(50, 0, 100, 100), "Bure")
    assert majority_value(SITE, [left, right]) == "Bure"


def test_nothing_intersecting_gives_none() -> None:
    assert majority_value(SITE, [Zone(box(200, 200, 300, 300), 5)]) is None
    assert majority_value(SITE, []) is None
