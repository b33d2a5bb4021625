"""round2 follows numpy's round; allocate_pennies always adds up."""

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from nrf.domain.rounding import allocate_pennies, round2


def test_half_cases_follow_the_binary_product_like_numpy() -> None:
    assert round2(0.015) == 0.02  # 0.015 * 100 == 1.5 exactly in binary: half to even -> 2
    assert round(0.015, 2) == 0.01  # Python's decimal-correct rounding differs here
    assert round2(2.675) == 2.68  # 2.675 * 100 == 267.5 in binary: half to even -> 268
    assert round(2.675, 2) == 2.67  # ... though 2.675 itself is stored just below 2.675
    assert round2(0.125) == 0.12  # 12.5 -> 12, half to even
    assert round2(0.135) == 0.14  # 0.135 * 100 == 13.5: half to even -> 14
    assert round2(-0.125) == -0.12  # -12.5 -> -12, half to even
    assert round2(1.005) == 1.0  # 1.005 * 100 == 100.49999999999999
    assert round2(-156.9625) == -156.96  # -15696.25 -> -15696
    assert round2(38.5293984) == 38.53  # 3852.93984 -> 3853


def test_non_finite_values_pass_through() -> None:
    assert math.isnan(round2(float("nan")))
    assert round2(float("inf")) == float("inf")


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_matches_numpy_round(x: float) -> None:
    assert round2(x) == float(np.round(np.float64(x), 2))


def test_allocation_hands_left_over_pennies_to_largest_remainders() -> None:
    # 10.00 split three ways: 3.333.. each -> 3.33 x3 = 9.99, one penny to the first.
    assert allocate_pennies(10.0, [10 / 3, 10 / 3, 10 / 3]) == [3.34, 3.33, 3.33]
    # Floors 12 + 87 = 99 pennies of 100; remainders .5 and .5 tie: the earlier part gets it.
    assert allocate_pennies(1.0, [0.125, 0.875]) == [0.13, 0.87]
    # Floors -13 + -88 = -101 of -100: one penny back, again to the earlier of the tied parts.
    assert allocate_pennies(-1.0, [-0.125, -0.875]) == [-0.12, -0.88]
    # Floors 12 + 87 = 99 of 100; remainders .5 and .9: the larger remainder wins, not order.
    assert allocate_pennies(1.0, [0.125, 0.879]) == [0.12, 0.88]
    assert allocate_pennies(5.0, []) == []


@given(st.lists(st.floats(min_value=-1e5, max_value=1e5, allow_nan=False), min_size=1, max_size=8))
def test_allocation_always_sums_to_the_total_in_pennies(shares: list[float]) -> None:
    total = round2(math.fsum(shares))
    parts = allocate_pennies(total, shares)
    assert sum(round(p * 100) for p in parts) == round(total * 100)
    for part, share in zip(parts, shares, strict=True):
        assert abs(part - share) <= 0.01 * len(shares) + 1e-6


def test_one_part_gets_the_whole_total_whatever_its_share() -> None:
    # target = round(2.675 * 100) = round(267.5) = 268 pennies (half to even) -> 2.68,
    # whatever the unrounded share (its floor 266 plus the 2 pennies owed, or 300 less 32).
    assert allocate_pennies(2.675, [2.669]) == [2.68]
    assert allocate_pennies(2.675, [3.0]) == [2.68]
    # -0.125 * 100 = -12.5 -> -12 (half to even) -> -0.12, from a share of -0.2 (floor -20).
    assert allocate_pennies(-0.125, [-0.2]) == [-0.12]
