"""Use case: what a map front end needs while an applicant draws: overlaps, majorities, scope.

No dwellings are needed: the site is assessed as 0 dwellings of a placeholder category only to
reuse the one scope rule of the calculation (``assess_site``), so "in scope" here can never
disagree with what a quote later says for the same boundary.
"""

from __future__ import annotations

from attrs import evolve, frozen

from nrf.domain.assessment import assess_site, provenance
from nrf.domain.majority import majority_value
from nrf.domain.model import LookupTables
from nrf.domain.overlaps import Overlap, catchment_overlaps
from nrf.domain.ports import BoundaryDataRepository
from nrf.domain.results import OutOfScopeSite, Provenance
from nrf.domain.rounding import round2
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature, validate_features
from nrf.service_layer.quotes import QuoteRequest, stamped

_PLACEHOLDER = {"dwellings": 0, "dwelling_category": "boundary check", "source": ""}


@frozen(kw_only=True)
class SiteCheck:
    """One boundary's facts; ``reason_code``/``reason`` say why it is out of scope."""

    rlb_id: int
    id: str
    name: str
    area_ha: float
    nn_catchments: tuple[Overlap, ...]
    edps: tuple[Overlap, ...]
    majority_wwtw_id: int
    wwtw_name: str | None
    majority_lpa: str
    subcatchment: str | None
    in_scope: bool
    reason_code: str | None
    reason: str | None


@frozen
class BoundaryCheck:
    """Every site of the request, in input order, with the provenance of the data used."""

    provenance: Provenance
    sites: tuple[SiteCheck, ...]


class CheckBoundary:
    """Validate the boundaries (not the dwellings), then look each one up in the bundle."""

    def __init__(
        self,
        repository: BoundaryDataRepository,
        limits: InputLimits = DEFAULT_LIMITS,
        default_rules: str | None = None,
    ) -> None:
        self._repository, self._limits, self._default_rules = repository, limits, default_rules

    def __call__(self, request: QuoteRequest) -> BoundaryCheck:
        rules = rule_set_named(request.rules or self._default_rules)
        # A boundary without id or name is fine here: fill them so only geometry is judged.
        developments = validate_features([_filled(f) for f in request.features], self._limits)
        lookups = self._repository.lookups()
        sites = []
        for dev in developments:
            ref = self._repository.reference_for(dev.boundary)
            outcome = assess_site(dev, ref, lookups, rules)
            per_catchment, per_edp = catchment_overlaps(dev.boundary, ref.nn_catchments)
            per_edp = tuple(evolve(e, name=_edp_name(e.edp_id, lookups)) for e in per_edp)
            wwtw = majority_value(dev.boundary, ref.wwtw_catchments)
            wwtw_id = rules.fallback_wwtw_id if wwtw is None else int(wwtw)
            permit = lookups.permits.get(wwtw_id)
            lpa = majority_value(dev.boundary, ref.lpa_boundaries)
            opcat = majority_value(dev.boundary, ref.subcatchments)
            out = outcome if isinstance(outcome, OutOfScopeSite) else None
            sites.append(
                SiteCheck(
                    rlb_id=dev.rlb_id,
                    id=dev.id,
                    name=dev.name,
                    area_ha=round2(dev.boundary.area / rules.m2_per_ha),
                    nn_catchments=per_catchment,
                    edps=per_edp,
                    majority_wwtw_id=wwtw_id,
                    wwtw_name=permit.wwtw_name if permit else None,
                    majority_lpa="UNKNOWN" if lpa is None else str(lpa),
                    subcatchment=None if opcat is None else str(opcat),
                    in_scope=out is None,
                    reason_code=out.reason_code if out else None,
                    reason=out.reason if out else None,
                )
            )
        info = provenance(self._repository.info(), rules)
        return BoundaryCheck(provenance=info, sites=tuple(sites))


def _filled(feature: RawFeature) -> RawFeature:
    """The feature with placeholder dwellings, and its position as id/name where it has none."""
    present = {str(k).casefold(): v for k, v in feature.properties.items()}
    fields: dict[str, object] = dict(_PLACEHOLDER)
    for key in ("id", "name"):
        if present.get(key) in (None, ""):
            fields[key] = str(feature.index)
    return stamped([feature], fields)[0]


def _edp_name(edp_id: str, lookups: LookupTables) -> str:
    rate = lookups.levy_rates.get(edp_id)
    return rate.edp_name if rate is not None else edp_id
