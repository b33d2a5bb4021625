"""Assess developments: every figure of one site from its own reference data only."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date
from decimal import Decimal

import nrf
from nrf.domain.charging import LevyPrices, levy_outcome
from nrf.domain.edp_geography import catchment_overlaps, edp_overlaps, excluded_areas_met
from nrf.domain.first_pass import FirstPass
from nrf.domain.land_use import land_use_pieces, post_suds, suds_applies
from nrf.domain.majority import majority_value
from nrf.domain.model import BundleInfo, Development, LookupTables, SiteReferenceData
from nrf.domain.ports import BoundaryDataRepository, SiteMap
from nrf.domain.read_ahead import READ_WINDOW, Read, chunked, first_passes, read_ahead
from nrf.domain.repeated_ids import repeated_ids_warnings
from nrf.domain.results import (
    AssessmentRun,
    LevyPricing,
    LevyRefusal,
    OutOfScopeSite,
    Provenance,
    SiteAssessment,
    SiteIdentity,
)
from nrf.domain.rounding import round2
from nrf.domain.rules import RuleSet
from nrf.domain.site_outlines import SiteOutlines
from nrf.domain.split import split_by_catchment
from nrf.domain.wastewater import (
    litres_per_day,
    rates_for,
    total_with_buffer,
    wastewater_loads,
)

Progress = Callable[[int, int], None]


def identity(dev: Development) -> SiteIdentity:
    return SiteIdentity(
        rlb_id=dev.rlb_id,
        id=dev.id,
        name=dev.name,
        dwelling_category=dev.dwelling_category,
        source=dev.source,
        dwellings=dev.dwellings,
    )


# Long: Defra's calculation step by step as docs/calculation.md numbers it; split next (issue 32).
def assess_site(
    dev: Development,
    ref: SiteReferenceData,
    lookups: LookupTables,
    rules: RuleSet,
    quote_date: date | None = None,
    prices: LevyPrices | None = None,
    first: FirstPass | None = None,
) -> SiteAssessment | OutOfScopeSite:
    """The nutrient calculation for one development (all figures kg/year), and its levy.

    The levy is priced (or refused) on ``quote_date``; with None it is not asked for, as in a
    boundary check, and the site has neither a pricing nor a refusal. ``prices``: the batch's
    ``LevyPrices`` over ``lookups``, so each distinct levy is priced once. ``first``: the
    site's ``FirstPass`` when its window asked the predicates for every site at once.
    """
    boundary = dev.boundary
    dev_area_ha = round2(boundary.area / rules.m2_per_ha)

    if first is None:
        first = FirstPass(
            wwtw=majority_value(boundary, ref.wwtw_catchments),
            lpa=majority_value(boundary, ref.lpa_boundaries),
            subcatchment=majority_value(boundary, ref.subcatchments),
        )
    wwtw_value, lpa, opcat = first.wwtw, first.lpa, first.subcatchment
    on_fallback = wwtw_value is None
    wwtw_id = rules.fallback_wwtw_id if wwtw_value is None else int(wwtw_value)
    dev_subcatchment = None if opcat is None else str(opcat)
    permit = lookups.permits.get(wwtw_id)

    # Each catchment, EDP and excluded outline is tested and cut once for all the steps below.
    site = SiteOutlines(boundary) if first.outlines is None else first.outlines
    pieces = first.pieces
    if pieces is None:
        pieces = land_use_pieces(
            boundary, ref.coefficients, ref.nn_catchments, dev_area_ha, rules, site
        )
    in_nn = bool(pieces)
    is_package_plant = wwtw_id == rules.fallback_wwtw_id or (
        permit is not None and permit.wwtw_name.casefold() == rules.fallback_wwtw_name.casefold()
    )
    if not in_nn and permit is None:
        return OutOfScopeSite(
            identity(dev),
            "outside_catchments_no_wwtw",
            f"the site is in no NN catchment and its treatment works ({wwtw_id}) has no permit row",
        )
    if not in_nn and is_package_plant and not rules.keep_fallback_wwtw_outside_catchments:
        return OutOfScopeSite(
            identity(dev),
            "outside_catchments_package_treatment_plant",
            "the site is in no NN catchment and drains to the default package treatment plant",
        )

    # Land use: plain float sum of the rounded pieces, as published.
    area_in_nn = sum(p.area_ha for p in pieces) if in_nn else None
    n_uplift = sum(p.n_uplift for p in pieces if p.n_uplift is not None) if in_nn else None
    p_uplift = sum(p.p_uplift for p in pieces if p.p_uplift is not None) if in_nn else None
    n_post = post_suds(n_uplift, dev.dwellings, rules) if n_uplift is not None else None
    p_post = post_suds(p_uplift, dev.dwellings, rules) if p_uplift is not None else None

    catchment_areas: dict[str, float] = {}
    for piece in pieces:
        catchment_areas.setdefault(piece.n2k_site_name, 0.0)
        catchment_areas[piece.n2k_site_name] += piece.area_ha
    chosen = rates_for(dev.dwelling_category, catchment_areas, lookups.rates)
    litres = litres_per_day(dev.dwellings, chosen.rate)
    loads = wastewater_loads(litres, permit, rules)

    n_exact = total_with_buffer(n_post or 0.0, loads.n_perm, rules)
    p_exact = total_with_buffer(p_post or 0.0, loads.p_perm, rules)
    n_total, p_total = round2(n_exact), round2(p_exact)

    catchments = split_by_catchment(
        pieces,
        n_post_suds=n_post or 0.0,
        p_post_suds=p_post or 0.0,
        n_uplift=n_uplift or 0.0,
        p_uplift=p_uplift or 0.0,
        suds_fraction=(
            rules.suds_removal_percent / 100 if suds_applies(dev.dwellings, rules) else 0.0
        ),
        n_wwtw_perm=loads.n_perm,
        p_wwtw_perm=loads.p_perm,
        area_in_nn_ha=round2(area_in_nn or 0.0),
        n_total=n_total,
        p_total=p_total,
        buffer_fraction=rules.buffer_percent / 100,
    )
    # The levy: the EDP's charging schedule, priced on the quote date (or refused, with why).
    edps = edp_overlaps(boundary, ref.edps, site)
    excluded = excluded_areas_met(boundary, ref.excluded_areas, site)
    levy = (
        None
        if quote_date is None
        else levy_outcome(
            units=dev.dwellings,
            edps=edps,
            excluded_areas=excluded,
            quote_date=quote_date,
            lookups=lookups,
            prices=prices,
        )
    )

    if on_fallback:
        wwtw_subcatchment = dev_subcatchment
    else:
        wwtw_subcatchment = permit.wwtw_subcatchment if permit else None

    return SiteAssessment(
        site=identity(dev),
        dev_area_ha=dev_area_ha,
        area_in_nn_catchment_ha=round2(area_in_nn) if area_in_nn is not None else None,
        nn_catchments=tuple(sorted(catchment_areas)),
        dev_subcatchment=dev_subcatchment,
        majority_lpa="UNKNOWN" if lpa is None else str(lpa),
        majority_wwtw_id=wwtw_id,
        wwtw_name=permit.wwtw_name if permit else None,
        wwtw_subcatchment=wwtw_subcatchment,
        n_lu_uplift=n_uplift,
        p_lu_uplift=p_uplift,
        n_lu_post_suds=n_post,
        p_lu_post_suds=p_post,
        occupancy_rate=chosen.rate.occupancy_rate,
        water_usage_l_per_person_day=chosen.rate.water_usage_l_per_person_day,
        rates_source=chosen.source,
        litres_used=litres,
        n_conc_2025_2030=permit.n_conc_2025_2030 if permit else None,
        n_conc_2030_on=permit.n_conc_2030_on if permit else None,
        p_conc_2025_2030=permit.p_conc_2025_2030 if permit else None,
        p_conc_2030_on=permit.p_conc_2030_on if permit else None,
        n_wwtw_temp=round2(loads.n_temp),
        p_wwtw_temp=round2(loads.p_temp),
        n_wwtw_perm=round2(loads.n_perm),
        p_wwtw_perm=round2(loads.p_perm),
        n_total=n_total,
        p_total=p_total,
        catchments=catchments,
        edps=edps,
        catchment_overlaps=catchment_overlaps(boundary, ref.nn_catchments, site),
        excluded_areas=excluded,
        pricing=levy if isinstance(levy, LevyPricing) else None,
        levy_refusal=levy if isinstance(levy, LevyRefusal) else None,
        n_total_unrounded=n_exact,
        p_total_unrounded=p_exact,
    )


def provenance(info: BundleInfo, rules: RuleSet) -> Provenance:
    return Provenance(
        rule_set=rules.name,
        bundle_name=info.name,
        bundle_version=info.version,
        bundle_sha256=info.sha256,
        synthetic_data=info.synthetic,
        software_version=nrf.__version__,
    )


class AssessDevelopments:
    """Use case: assess a batch of developments; each site sees only its own data.

    Because no site depends on another, ``site_map`` may run them in several processes;
    results keep the input order, so the run is the same whichever map is used.
    """

    def __init__(self, repository: BoundaryDataRepository, site_map: SiteMap = map) -> None:
        self._repository = repository
        self._map = site_map
        # Sites are read a window at a time; a map that holds a window itself sets its size.
        self._window = int(getattr(site_map, "window", READ_WINDOW))
        # A map that may fork says into how many processes (``ForkedSiteMap.parts_for``).
        self._parts_for: Callable[[int], int] = getattr(site_map, "parts_for", lambda _: 1)

    def __call__(
        self,
        developments: Sequence[Development],
        rules: RuleSet,
        quote_date: date,
        progress: Progress | None = None,
    ) -> AssessmentRun:
        """Every site's figures, and its levy as quoted on ``quote_date`` (a commencement day)."""
        sites: list[SiteAssessment] = []
        out: list[OutOfScopeSite] = []
        outcomes = self.outcomes(developments, rules, quote_date, len(developments), progress)
        for outcome in outcomes:
            (sites if isinstance(outcome, SiteAssessment) else out).append(outcome)  # type: ignore[arg-type]
        return AssessmentRun(
            provenance=self.provenance(rules),
            warnings=repeated_ids_warnings(d.id for d in developments),
            sites=tuple(sites),
            out_of_scope=tuple(out),
            levy_total_excluding_vat=levy_total_excluding_vat(sites),
        )

    def provenance(self, rules: RuleSet) -> Provenance:
        return provenance(self._repository.info(), rules)

    def outcomes(
        self,
        developments: Iterable[Development],
        rules: RuleSet,
        quote_date: date,
        total: int,
        progress: Progress | None = None,
    ) -> Iterator[SiteAssessment | OutOfScopeSite]:
        """Each site's outcome in input order as it is made, so a national file streams."""
        lookups = self._repository.lookups()
        repository = self._repository
        prices = LevyPrices(lookups)

        def chunk(items: list[Read]) -> list[SiteAssessment | OutOfScopeSite]:
            outcomes: list[SiteAssessment | OutOfScopeSite] = []
            # A chunk's first pass where it is mapped, so forked children share that work too.
            for dev, ref, first in first_passes(items, rules):
                ref = repository.reference_for(dev.boundary) if ref is None else ref
                outcomes.append(assess_site(dev, ref, lookups, rules, quote_date, prices, first))
            return outcomes

        # Each window's reference data is read as one batch (issue 32), before its sites are
        # mapped, so a forked child inherits it; a window bounds what a national file holds.
        # Its sites are mapped a chunk at a time (``chunked``).
        done = 0
        sites = iter(developments)
        while window := list(itertools.islice(sites, self._window)):
            items = read_ahead(repository, window)
            chunks = chunked(items, self._parts_for)
            for outcomes in self._map(chunk, chunks):
                for outcome in outcomes:
                    done += 1
                    if progress is not None:
                        progress(done, total)
                    yield outcome
            del window, items, chunks  # before the next window is read


def levy_total_excluding_vat(sites: Iterable[SiteAssessment]) -> Decimal:
    """The batch's quoted levies excluding VAT (one pass, so a spooled batch streams too)."""
    return sum(
        (s.pricing.amount_excluding_vat for s in sites if s.pricing is not None), Decimal("0.00")
    )
