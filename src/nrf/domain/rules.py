"""Named rule sets: every business parameter of a calculation in one value."""

from __future__ import annotations

from attrs import frozen

from nrf.domain.errors import InvalidInput, Problem


@frozen(kw_only=True)
class RuleSet:
    """Business rules for one published version of the impact assessment tool."""

    name: str
    description: str
    wwtw_operating_factor: float
    suds_removal_percent: float
    suds_min_dwellings: int  # SuDS applies where dwellings >= this; 0 means every site
    greenspace_enabled: bool
    greenspace_threshold_ha: float
    greenspace_percent: float
    greenspace_n_coeff: float
    greenspace_p_coeff: float
    buffer_percent: float
    fallback_wwtw_id: int
    fallback_wwtw_name: str
    keep_fallback_wwtw_outside_catchments: bool
    days_per_year: float = 365.25
    mg_per_kg: float = 1_000_000.0
    m2_per_ha: float = 10_000.0


def _rule_set(name: str, description: str, **overrides: object) -> RuleSet:
    base: dict[str, object] = {
        "wwtw_operating_factor": 0.9,
        "suds_removal_percent": 25.0,
        "suds_min_dwellings": 0,
        "greenspace_enabled": False,
        "greenspace_threshold_ha": 1.0,
        "greenspace_percent": 20.0,
        "greenspace_n_coeff": 3.0,
        "greenspace_p_coeff": 0.2,
        "buffer_percent": 20.0,
        "fallback_wwtw_id": 141,
        "fallback_wwtw_name": "Package Treatment Plant default",
        "keep_fallback_wwtw_outside_catchments": False,
    }
    base.update(overrides)
    return RuleSet(name=name, description=description, **base)  # type: ignore[arg-type]


RULE_SETS: dict[str, RuleSet] = {
    rs.name: rs
    for rs in (
        _rule_set(
            "iat-2025-09",
            "IAT September 2025: permit loads at 100 %, SuDS on every site, no greenspace",
            wwtw_operating_factor=1.0,
            keep_fallback_wwtw_outside_catchments=True,
        ),
        _rule_set(
            "iat-2025-10",
            "IAT October 2025: permit loads at 90 %, SuDS on every site, no greenspace",
        ),
        _rule_set(
            "iat-2026-04",
            "IAT April 2026: permit loads at 90 %, SuDS from 50 dwellings, greenspace from 1 ha",
            suds_min_dwellings=50,
            greenspace_enabled=True,
        ),
    )
}

DEFAULT_RULE_SET = "iat-2026-04"


def rule_set_named(name: str | None) -> RuleSet:
    """Return the rule set called ``name`` (the default when None)."""
    key = DEFAULT_RULE_SET if name is None else name
    try:
        return RULE_SETS[key]
    except KeyError:
        known = ", ".join(sorted(RULE_SETS))
        # Input, not a fault: a job naming a rule set that does not exist can never succeed, and
        # as a plain NrfError it was retried until it reached the dead-letter queue.
        message = f"unknown rule set {key!r}; known: {known}"
        raise InvalidInput(
            [Problem(code="unknown_rule_set", message=message, field="rules")]
        ) from None
