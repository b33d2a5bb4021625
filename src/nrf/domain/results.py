"""Typed results of an assessment, as cattrs-friendly frozen values."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from attrs import frozen

from nrf.domain.levy_rounding import LevyRounding


@frozen(kw_only=True)
class SiteIdentity:
    """The input attributes of a site, echoed in every output."""

    rlb_id: int
    id: str
    name: str
    dwelling_category: str
    source: str
    dwellings: int


@frozen(kw_only=True)
class CatchmentImpact:
    """A site's share of impact inside one NN catchment; shares add up to the site totals."""

    n2k_site_name: str
    # The lowest OID of the N2K site's catchment polygons, as text: one row may span several
    # catchments (Labels), so it is not a ``catchment_id`` of ``catchment_overlaps``, nor an EDP.
    lowest_oid: str
    area_ha: float
    n_lu_post_suds: float
    p_lu_post_suds: float
    n_wwtw_perm: float
    p_wwtw_perm: float
    n_total: float
    p_total: float


@frozen(kw_only=True)
class EdpOverlap:
    """An EDP polygon set (one id) that a boundary meets, and how much of the boundary is in it."""

    edp_id: int
    edp_name: str
    overlap_m2: float
    overlap_percentage: float  # share of the boundary's area, 0-100


@frozen(kw_only=True)
class CatchmentOverlap:
    """An NN catchment (its polygons of one label dissolved) and the share of the boundary in it."""

    label: str  # the catchment's Label (its N2K site's name, from a bundle without labels)
    catchment_id: str
    overlap_percentage: float  # 0-100


@frozen(kw_only=True)
class IndexRow:
    """One charging year of the RICS CIL inflation index, as the bundle holds it."""

    charging_year: int
    cil_index: Decimal
    index_factor: Decimal


@frozen(kw_only=True)
class LevyPricing:
    """The levy of one site from its EDP's charging schedule, and every input that priced it.

    Amounts are pounds excluding VAT unless named otherwise; VAT is shown for people only.
    """

    edp_id: int
    edp_name: str
    units: int
    quote_date: date
    edp_start_date: date
    charge_valid_from: date
    charge_valid_to: date  # inclusive
    base_charge_per_unit: Decimal  # 4 dp, as scheduled
    # 2 dp; indexed when the quote year is not the EDP's start year. Under round_total it is
    # shown only: the amount is base x units x factor, rounded once.
    per_unit_charge: Decimal
    index_rows: tuple[IndexRow, ...]  # the start and quote years' rows when indexed, else ()
    base_amount: Decimal  # provisional (un-indexed): base x units to the penny, by ``rounding``
    amount_inflation_adjusted: Decimal
    amount_excluding_vat: Decimal
    vat_rate: Decimal
    vat: Decimal
    amount_including_vat: Decimal
    calculator_version: str
    # Where the sum was rounded (the bundle's rule); results stored before it: per unit.
    rounding: LevyRounding = LevyRounding.PER_UNIT


@frozen
class LevyRefusal:
    """Why a site's levy is not quoted (a stable code and plain words); its figures still stand."""

    code: str
    message: str


@frozen(kw_only=True)
class SiteAssessment:
    """Every figure of one in-scope site (kg/year unless named otherwise)."""

    site: SiteIdentity
    dev_area_ha: float
    area_in_nn_catchment_ha: float | None
    nn_catchments: tuple[str, ...]
    dev_subcatchment: str | None
    majority_lpa: str
    majority_wwtw_id: int
    wwtw_name: str | None
    wwtw_subcatchment: str | None
    n_lu_uplift: float | None
    p_lu_uplift: float | None
    n_lu_post_suds: float | None
    p_lu_post_suds: float | None
    occupancy_rate: float
    water_usage_l_per_person_day: float
    rates_source: str  # "category", "catchment" or "default"
    litres_used: float
    n_conc_2025_2030: float | None
    n_conc_2030_on: float | None
    p_conc_2025_2030: float | None
    p_conc_2030_on: float | None
    n_wwtw_temp: float
    p_wwtw_temp: float
    n_wwtw_perm: float
    p_wwtw_perm: float
    n_total: float
    p_total: float
    catchments: tuple[CatchmentImpact, ...]
    # Defra's current contract (EDP charging schedule); defaults until the assessment fills them.
    edps: tuple[EdpOverlap, ...] = ()
    catchment_overlaps: tuple[CatchmentOverlap, ...] = ()
    excluded_areas: tuple[str, ...] = ()  # names of excluded areas met (blank for an unnamed one)
    pricing: LevyPricing | None = None  # exactly one of pricing and levy_refusal is set
    levy_refusal: LevyRefusal | None = None
    # The totals before rounding, as Defra's assessor hands them to its PATCH mapper (which
    # rounds them its own way: nrf.domain.quote_update). None in results stored before them.
    n_total_unrounded: float | None = None
    p_total_unrounded: float | None = None


@frozen
class OutOfScopeSite:
    """A site the tool does not assess, with the reason; never silently dropped."""

    site: SiteIdentity
    reason_code: str
    reason: str


@frozen(kw_only=True)
class Provenance:
    """Where a result came from: rules, reference data and software."""

    rule_set: str
    bundle_name: str
    bundle_version: str
    bundle_sha256: str
    synthetic_data: bool
    software_version: str


@frozen(kw_only=True)
class RunWarning:
    """Something a run quoted through but the user must be told (a stable code and plain words)."""

    code: str
    message: str
    site_ids: tuple[str, ...] = ()  # the site ids it is about, when it is about some


@frozen(kw_only=True)
class AssessmentRun:
    """The outcome of assessing a batch of sites (each site independent of the others)."""

    provenance: Provenance
    warnings: tuple[RunWarning, ...] = ()  # said in every output a person or program reads
    sites: tuple[SiteAssessment, ...]
    out_of_scope: tuple[OutOfScopeSite, ...]
    # The levy of every priced site from its EDP's charging schedule, pounds excluding VAT.
    levy_total_excluding_vat: Decimal
