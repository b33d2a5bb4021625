"""Use case: a synchronous quote for the sites of one request, the same run `nrf assess` makes.

The API and the CLI differ only in how the boundaries arrive; from raw features on, both go
through ``validate_features`` and ``AssessDevelopments`` with the same limits and rule set, so
the same boundary gives the same document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from attrs import frozen

from nrf.domain.assessment import AssessDevelopments
from nrf.domain.charging import utc_day
from nrf.domain.model import Development
from nrf.domain.ports import Clock
from nrf.domain.results import AssessmentRun
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature, validate_features


def stamped(features: Sequence[RawFeature], fields: Mapping[str, object]) -> tuple[RawFeature, ...]:
    """Features whose properties are overlaid with ``fields`` (form fields beat file columns).

    A reference (``id``) names one site, so it is given to a file of one site only; each site
    of a file of several keeps its own, as a quote of several sites must tell them apart.
    """
    if len(features) > 1:
        fields = {key: value for key, value in fields.items() if key != "id"}
    if not fields:
        return tuple(features)
    return tuple(
        RawFeature(
            index=f.index,
            properties={**f.properties, **fields},
            geometry=f.geometry,
            crs=f.crs,
            problems=f.problems,
        )
        for f in features
    )


@frozen
class QuoteRequest:
    """Raw features (in EPSG:27700), the rule set and the quote date asked for (None: defaults).

    The quote date defaults to today (UTC); a later one quotes a later commencement.
    """

    features: tuple[RawFeature, ...]
    rules: str | None = None
    quote_date: date | None = None


@frozen
class Quote:
    """The run and the developments it assessed (the GeoJSON and the report need both)."""

    run: AssessmentRun
    developments: tuple[Development, ...]


class GetQuote:
    """Validate every site (all problems at once), then assess them in input order."""

    def __init__(
        self,
        assess: AssessDevelopments,
        limits: InputLimits = DEFAULT_LIMITS,
        default_rules: str | None = None,
        *,
        clock: Clock,
    ) -> None:
        self._assess, self._limits, self._default_rules = assess, limits, default_rules
        self._clock = clock

    def __call__(self, request: QuoteRequest) -> Quote:
        rules = rule_set_named(request.rules or self._default_rules)
        developments = validate_features(request.features, self._limits)
        day = request.quote_date or utc_day(self._clock.now())
        run = self._assess(developments, rules, day)
        return Quote(run=run, developments=tuple(developments))
