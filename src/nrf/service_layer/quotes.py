"""Use case: a quote for the sites of one request (the API); `nrf assess` shares its steps.

:class:`GetQuote` is the rule set by name, the validation of every site, then the assessment.
`nrf assess` does not call it: it calls the same domain steps itself (``rule_set_named``;
``check_count``, ``file_columns`` and ``validated``, which ``validate_features`` is made of;
the core root's ``AssessDevelopments``) so it can time each stage and stream a large file
instead of holding it. The same boundary, limits and rule set give the same figures
(tests/integration/test_api_same_figures.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

import attrs
from attrs import frozen

from nrf.domain.assessment import AssessDevelopments, Progress
from nrf.domain.charging import utc_day
from nrf.domain.model import Development
from nrf.domain.ports import Clock
from nrf.domain.results import AssessmentRun, RunWarning
from nrf.domain.rules import RuleSet, rule_set_named
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


@frozen(kw_only=True)
class QuoteRequest:
    """Raw features (in EPSG:27700), the rule set and the quote date asked for (None: defaults).

    The quote date defaults to today (UTC); a later one quotes a later commencement. The
    warnings are those found reading the request (a column the mapping set aside): the run
    carries them first.
    """

    features: tuple[RawFeature, ...]
    rules: str | None = None
    quote_date: date | None = None
    warnings: tuple[RunWarning, ...] = ()


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
        rules = self.rules(request.rules)
        developments = self.validate(request.features)
        run = self.assess(developments, rules, request.quote_date)
        if request.warnings:
            run = attrs.evolve(run, warnings=(*request.warnings, *run.warnings))
        return Quote(run=run, developments=tuple(developments))

    def rules(self, name: str | None) -> RuleSet:
        """The rule set named, else the default; an unknown name is refused before any site."""
        return rule_set_named(name or self._default_rules)

    def validate(
        self, features: Sequence[RawFeature], progress: Progress | None = None
    ) -> list[Development]:
        """Every site checked against these limits; InvalidInput lists every problem."""
        return validate_features(features, self._limits, progress=progress)

    def assess(
        self,
        developments: Sequence[Development],
        rules: RuleSet,
        quote_date: date | None = None,
        progress: Progress | None = None,
    ) -> AssessmentRun:
        """The run, its levy quoted on ``quote_date`` (a commencement day; else today, UTC)."""
        day = quote_date or utc_day(self._clock.now())
        return self._assess(developments, rules, day, progress=progress)
