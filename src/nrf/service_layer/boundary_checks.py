"""Use case: what a map front end needs while an applicant draws: overlaps, majorities, scope.

The EDPs are those of the bundle's EDP layer (not NN catchments), each with the NN catchments
of the boundary inside it, and the excluded areas the boundary meets, as Defra's own
``/check-boundary`` reports them; the API renders those in Defra's names.

No dwellings are needed: the site is assessed as 0 dwellings of a placeholder category only to
reuse the one scope rule of the calculation (``assess_site``), so "in scope" here can never
disagree with what a quote later says for the same boundary.
"""

from __future__ import annotations

from attrs import frozen

from nrf.domain.assessment import assess_site, provenance
from nrf.domain.edp_catchments import catchments_by_edp
from nrf.domain.edp_geography import edp_overlaps, excluded_areas_met
from nrf.domain.majority import majority_value
from nrf.domain.overlaps import Overlap, catchment_and_edp_areas
from nrf.domain.ports import BoundaryDataRepository
from nrf.domain.results import CatchmentOverlap, EdpOverlap, OutOfScopeSite, Provenance
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
    # The EDP layer's EDPs the boundary meets, and in each the boundary's NN catchments.
    intersecting_edps: tuple[EdpOverlap, ...]
    edp_catchments: tuple[tuple[CatchmentOverlap, ...], ...]  # one entry per EDP, same order
    intersecting_excluded_areas: tuple[str, ...]  # names; "" for an unnamed area
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
            per_catchment, _ = catchment_and_edp_areas(dev.boundary, ref.nn_catchments)
            edps = edp_overlaps(dev.boundary, ref.edps)
            inside = catchments_by_edp(
                dev.boundary, [e.edp_id for e in edps], ref.edps, ref.nn_catchments
            )
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
                    intersecting_edps=edps,
                    edp_catchments=tuple(inside[e.edp_id] for e in edps),
                    intersecting_excluded_areas=excluded_areas_met(
                        dev.boundary, ref.excluded_areas
                    ),
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
