"""The backend's PATCH body: each EDP its own share and levy, provenance, out-of-scope reported."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from nrf.domain.quote_update import quote_update
from nrf.domain.results import (
    AssessmentRun,
    CatchmentImpact,
    EdpLevy,
    LevyQuote,
    OutOfScopeSite,
    Provenance,
    SiteAssessment,
    SiteIdentity,
)

PROVENANCE = Provenance(
    rule_set="iat-2026-04",
    bundle_name="synthetic-norfolk",
    bundle_version="2026.1",
    bundle_sha256="ab" * 32,
    synthetic_data=True,
    software_version="0.1.0",
)
IDENTITY = SiteIdentity(
    rlb_id=1,
    id="NRF-000123",
    name="NRF-000123",
    dwelling_category="housing",
    source="web_submission",
    dwellings=25,
)


def money(levy: str, monitoring: str, maintenance: str, admin: str, mitigation: str) -> LevyQuote:
    return LevyQuote(
        levy_gbp=Decimal(levy),
        monitoring_gbp=Decimal(monitoring),
        maintenance_gbp=Decimal(maintenance),
        admin_gbp=Decimal(admin),
        mitigation_gbp=Decimal(mitigation),
    )


def catchment(name: str, edp: str, n: float, p: float) -> CatchmentImpact:
    return CatchmentImpact(
        n2k_site_name=name,
        edp_id=edp,
        area_ha=1.0,
        n_lu_post_suds=n,
        p_lu_post_suds=p,
        n_wwtw_perm=0.0,
        p_wwtw_perm=0.0,
        n_total=n,
        p_total=p,
    )


def site(catchments: tuple[CatchmentImpact, ...], edps: tuple[EdpLevy, ...]) -> SiteAssessment:
    fields: dict[str, Any] = {a.name: None for a in SiteAssessment.__attrs_attrs__}
    fields.update(
        site=IDENTITY,
        catchments=catchments,
        levy_by_edp=edps,
        levy=money("0", "0", "0", "0", "0"),
        n_total=0.0,
        p_total=0.0,
    )
    return SiteAssessment(**fields)


def test_each_edp_carries_its_own_share_and_levy_not_the_whole_total() -> None:
    # A site across two EDPs: N 10.00 + 4.50 = 14.50 kg/yr in all, P 1.20 + 0.30 = 1.50.
    # Their assessor would send 14.50 / 1.50 under both EDPs; we send each its own share.
    broads = EdpLevy(
        edp_id="32",
        edp_name="Broads EDP",
        n_total=10.0,
        p_total=1.2,
        quote=money("1234.56", "61.73", "37.04", "12.35", "1123.44"),
    )
    wensum = EdpLevy(
        edp_id="7", edp_name=None, n_total=4.5, p_total=0.3, quote=None
    )  # no rate in the bundle: no levy figure
    catchments = (
        catchment("The Broads SAC", "32", 6.0, 0.7),
        catchment("The Broads SAC", "32", 4.0, 0.5),
        catchment("River Wensum SAC", "7", 4.5, 0.3),
    )
    run = AssessmentRun(
        provenance=PROVENANCE,
        sites=(site(catchments, (broads, wensum)),),
        out_of_scope=(),
        levy_total=money("1234.56", "61.73", "37.04", "12.35", "1123.44"),
    )
    body = quote_update(run)
    assert body["edps"] == [
        {
            "edpId": "32",
            "edpName": "The Broads SAC",
            "edpType": "NUTRIENT",
            "impact": {
                "nitrogenTotal": {"amount": 10.0, "unit": "kg/year"},
                "phosphorusTotal": {"amount": 1.2, "unit": "kg/year"},
            },
            "levyGbp": {
                "min": 1234.56,
                "max": 1234.56,
                "monitoring": 61.73,
                "maintenance": 37.04,
                "admin": 12.35,
                "mitigation": 1123.44,
            },
        },
        {
            "edpId": "7",
            "edpName": "River Wensum SAC",
            "edpType": "NUTRIENT",
            "impact": {
                "nitrogenTotal": {"amount": 4.5, "unit": "kg/year"},
                "phosphorusTotal": {"amount": 0.3, "unit": "kg/year"},
            },
            "levyGbp": None,
        },
    ]
    assert body["provenance"]["bundleSha256"] == "ab" * 32
    assert body["provenance"]["ruleSet"] == "iat-2026-04"
    assert "outOfScope" not in body


def test_an_out_of_scope_site_is_reported_with_its_reason() -> None:
    away = OutOfScopeSite(IDENTITY, "outside_nn_catchments", "the site is in no NN catchment")
    run = AssessmentRun(
        provenance=PROVENANCE,
        sites=(),
        out_of_scope=(away,),
        levy_total=money("0", "0", "0", "0", "0"),
    )
    body = quote_update(run)
    assert body["edps"] == []
    assert body["outOfScope"] == {
        "reasonCode": "outside_nn_catchments",
        "reason": "the site is in no NN catchment",
    }
