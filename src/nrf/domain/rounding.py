"""Rounding exactly as Defra's published figures were produced (numpy's round)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def round2(value: float) -> float:
    """Round to 2 dp the way ``numpy.round(value, 2)`` does.

    numpy scales by 100, rounds half to even on the *binary* product, then
    divides: 0.015 becomes 0.02 because 0.015 * 100 == 1.5 in binary floating
    point, whereas Python's ``round(0.015, 2)`` gives 0.01. Defra's figures were
    made this way, so exact decimal arithmetic would differ in about 1 % of rows.
    """
    if not math.isfinite(value):
        return value
    return round(value * 100.0) / 100.0


def allocate_pennies(total: float, shares: Sequence[float]) -> list[float]:
    """Split a 2-dp ``total`` into 2-dp parts that add up to it exactly.

    ``shares`` are the unrounded parts, which should already sum to ``total``
    before rounding (they may be negative). Each part is floored to whole
    pennies, then the pennies still owed go one at a time to the parts with
    the largest remainder (ties: earliest part), largest-remainder style.
    """
    if not shares:
        return []
    target = round(total * 100.0)
    if len(shares) == 1 and math.isfinite(shares[0] * 100.0):
        # One part gets every penny (its floor plus all that is owed): the total itself.
        return [target / 100.0]
    scaled = [s * 100.0 for s in shares]
    pennies = [math.floor(s) for s in scaled]
    owed = int(target - sum(pennies))
    order = sorted(range(len(scaled)), key=lambda i: (-(scaled[i] - pennies[i]), i))
    step = 1 if owed >= 0 else -1
    for k in range(abs(owed)):
        index = order[k % len(order)] if step > 0 else order[-1 - (k % len(order))]
        pennies[index] += step
    return [p / 100.0 for p in pennies]
