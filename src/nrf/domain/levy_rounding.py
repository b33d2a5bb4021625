"""Where the levy is rounded to the penny: a rule the bundle states, because the two rules differ.

Defra's levy calculator rounded each unit's indexed charge first and multiplied after
(``per_unit``); its newest version multiplies first and rounds the total once
(``round_total``): 1,000 x 2 units x 1/3 is 666.67 rounding the total but 2 x 333.33 = 666.66
rounding per unit. Neither is derived from the other, so each bundle says which it was checked
under (``levy_settings`` ``levy_rounding``), new bundles take Defra's newest, and a bundle
built before the setting existed keeps the rule its figures were made with.
"""

from __future__ import annotations

from enum import StrEnum


class LevyRounding(StrEnum):
    # provisional half_up(base x units); indexed half_up(base x units x factor now / factor
    # at the EDP's start), exactly, with one rounding of the total (Defra's newest).
    ROUND_TOTAL = "round_total"
    # provisional half_up(half_up(base) x units); indexed per unit half_up(base x factor
    # ratio), then x units, half up (Defra's earlier calculator; nrf's rule until 2026-11).
    PER_UNIT = "per_unit"


SETTING = "levy_rounding"  # the key of the levy_settings row that names the rule
FOR_NEW_BUNDLES = LevyRounding.ROUND_TOTAL
# A bundle without the row was built, checked and quoted under the per-unit rule; reading it
# under another would change its figures without anyone choosing to.
UNSTATED = LevyRounding.PER_UNIT


def levy_rounding_named(text: str) -> LevyRounding:
    """The rule a setting names (exactly, as written); ValueError naming the choices."""
    try:
        return LevyRounding(text)
    except ValueError:
        choices = ", ".join(r.value for r in LevyRounding)
        raise ValueError(f"levy_rounding {text!r} is none of {choices}") from None
