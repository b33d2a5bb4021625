"""Typed results of an assessment, as cattrs-friendly frozen values."""

from __future__ import annotations

from decimal import Decimal

from attrs import frozen


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
class LevyQuote:
    """Money for one EDP or in total; components are parts of ``levy_gbp``."""

    levy_gbp: Decimal
    monitoring_gbp: Decimal
    maintenance_gbp: Decimal
    admin_gbp: Decimal
    mitigation_gbp: Decimal  # the rest of the levy after the three shares


@frozen(kw_only=True)
class CatchmentImpact:
    """A site's share of impact inside one NN catchment; shares add up to the site totals."""

    n2k_site_name: str
    edp_id: str
    area_ha: float
    n_lu_post_suds: float
    p_lu_post_suds: float
    n_wwtw_perm: float
    p_wwtw_perm: float
    n_total: float
    p_total: float


@frozen(kw_only=True)
class EdpLevy:
    """The levy for one EDP, from the site's catchment shares in that EDP."""

    edp_id: str
    edp_name: str | None
    n_total: float
    p_total: float
    quote: LevyQuote | None  # None when the bundle has no rate for this EDP


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
    levy_by_edp: tuple[EdpLevy, ...]
    levy: LevyQuote


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
class AssessmentRun:
    """The outcome of assessing a batch of sites (each site independent of the others)."""

    provenance: Provenance
    sites: tuple[SiteAssessment, ...]
    out_of_scope: tuple[OutOfScopeSite, ...]
    levy_total: LevyQuote
