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

PROVENANCE = Provenance("iat-2026-04", "synthetic-norfolk", "2026.1", "ab" * 32, True, "0.1.0")
IDENTITY = SiteIdentity(1, "NRF-000123", "NRF-000123", "housing", "web_submission", 25)


def money(*values: str) -> LevyQuote:
    return LevyQuote(*(Decimal(v) for v in values))


def catchment(name: str, edp: str, n: float, p: float) -> CatchmentImpact:
    return CatchmentImpact(name, edp, 1.0, n, p, 0.0, 0.0, n, p)


def site(catchments: tuple[CatchmentImpact, ...], edps: tuple[EdpLevy, ...]) -> SiteAssessment:
    fields: dict[str, Any] = {a.name: None for a in SiteAssessment.__attrs_attrs__}
    fields.update(site=IDENTITY, catchments=catchments, levy_by_edp=edps,
                  levy=money("0", "0", "0", "0", "0"), n_total=0.0, p_total=0.0)  # fmt: skip
    return SiteAssessment(**fields)


def test_each_edp_carries_its_own_share_and_levy_not_the_whole_total() -> None:
    # A site across two EDPs: N 10.00 + 4.50 = 14.50 kg/yr in all, P 1.20 + 0.30 = 1.50.
    # Their assessor would send 14.50 / 1.50 under both EDPs; we send each its own share.
    broads = EdpLevy("32", "Broads EDP", 10.0, 1.2, money("1234.56", "61.73", "37.04", "12.35",
                                                         "1123.44"))  # fmt: skip
    wensum = EdpLevy("7", None, 4.5, 0.3, None)  # no rate in the bundle: no levy figure
    catchments = (catchment("The Broads SAC", "32", 6.0, 0.7),
                  catchment("The Broads SAC", "32", 4.0, 0.5),
                  catchment("River Wensum SAC", "7", 4.5, 0.3))  # fmt: skip
    run = AssessmentRun(PROVENANCE, (site(catchments, (broads, wensum)),), (),
                        money("1234.56", "61.73", "37.04", "12.35", "1123.44"))  # fmt: skip
    body = quote_update(run)
    assert body["edps"] == [
        {"edpId": "32", "edpName": "The Broads SAC", "edpType": "NUTRIENT",
         "impact": {"nitrogenTotal": {"amount": 10.0, "unit": "kg/year"},
                    "phosphorusTotal": {"amount": 1.2, "unit": "kg/year"}},
         "levyGbp": {"min": 1234.56, "max": 1234.56, "monitoring": 61.73, "maintenance": 37.04,
                     "admin": 12.35, "mitigation": 1123.44}},
        {"edpId": "7", "edpName": "River Wensum SAC", "edpType": "NUTRIENT",
         "impact": {"nitrogenTotal": {"amount": 4.5, "unit": "kg/year"},
                    "phosphorusTotal": {"amount": 0.3, "unit": "kg/year"}},
         "levyGbp": None},
    ]  # fmt: skip
    assert body["provenance"]["bundleSha256"] == "ab" * 32
    assert body["provenance"]["ruleSet"] == "iat-2026-04"
    assert "outOfScope" not in body


def test_an_out_of_scope_site_is_reported_with_its_reason() -> None:
    away = OutOfScopeSite(IDENTITY, "outside_nn_catchments", "the site is in no NN catchment")
    run = AssessmentRun(PROVENANCE, (), (away,), money("0", "0", "0", "0", "0"))
    body = quote_update(run)
    assert body["edps"] == []
    assert body["outOfScope"] == {"reasonCode": "outside_nn_catchments",
                                  "reason": "the site is in no NN catchment"}  # fmt: skip
