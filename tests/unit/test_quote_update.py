"""The backend's PATCH body: exactly its schema, one entry for the job's EDP, bands and levy."""

from __future__ import annotations

import copy
import json
from datetime import date
from decimal import Decimal

import pytest

from nrf.domain.quote_update import band, model_version, quote_update, quote_update_json
from nrf.domain.results import CatchmentOverlap, IndexRow
from support.backend_schema import assert_valid_patch, patch_errors
from support.defra_sites import norfolk_pricing, site

CATCHMENTS = (
    CatchmentOverlap(label="Broads SAC", catchment_id="NN-3", overlap_percentage=70.0),
    CatchmentOverlap(label="River Wensum SAC", catchment_id="NN-9", overlap_percentage=30.0),
)


def test_a_priced_site_is_one_entry_with_its_totals_catchments_and_levy() -> None:
    body = quote_update(site(catchments=CATCHMENTS, pricing=norfolk_pricing()))
    # N 71.06 > 5: band 4. P 1.5: over 0.25, not over 2: band 2. Levy from norfolk_pricing:
    # 10 units x £2,675.00 = £26,750.00, the same before and after indexing (its own year).
    assert body == {
        "edps": [
            {
                "edpId": 1,
                "edpName": "Norfolk EDP",
                "edpType": "NUTRIENT",
                "impact": {
                    "nitrogenTotal": {
                        "amount": 71.06,
                        "unit": "mg/I TP",
                        "band": {"min": 4, "max": 4},
                    },
                    "phosphorusTotal": {
                        "amount": 1.5,
                        "unit": "mg/I TP",
                        "band": {"min": 2, "max": 2},
                    },
                },
                "catchments": [
                    {
                        "label": "Broads SAC",
                        "catchmentId": "NN-3",
                        "catchmentOverlapPercentage": 70.0,
                    },
                    {
                        "label": "River Wensum SAC",
                        "catchmentId": "NN-9",
                        "catchmentOverlapPercentage": 30.0,
                    },
                ],
                "levyGbp": {
                    "amountExcludingVat": 26750.0,
                    "amountInflationAdjusted": 26750.0,
                    "baseAmount": 26750.0,
                    "modelVersion": 1,
                },
            }
        ]
    }
    assert_valid_patch(body)


def test_an_indexed_levy_keeps_the_provisional_and_the_indexed_amounts_apart() -> None:
    # £2,193.6649 a unit from 2026, quoted in 2027 with factors 1.0000 and 1.0350, 3 units:
    # provisional half-up(2193.6649, 2 dp) = 2193.66 x 3 = 6 580.98;
    # indexed per unit half-up(2193.6649 x 1.0350 / 1.0000 = 2270.4431715) = 2270.44,
    # x 3 = 6 811.32, which is also the amount excluding VAT.
    pricing = norfolk_pricing(
        units=3,
        quote_date=date(2027, 5, 1),
        base_charge_per_unit=Decimal("2193.6649"),
        per_unit_charge=Decimal("2270.44"),
        index_rows=(
            IndexRow(charging_year=2026, cil_index=Decimal("381"), index_factor=Decimal("1.0000")),
            IndexRow(charging_year=2027, cil_index=Decimal("394"), index_factor=Decimal("1.0350")),
        ),
        base_amount=Decimal("6580.98"),
        amount_inflation_adjusted=Decimal("6811.32"),
        amount_excluding_vat=Decimal("6811.32"),
        vat=Decimal("1362.26"),
        amount_including_vat=Decimal("8173.58"),
    )
    body = quote_update(site(pricing=pricing))
    assert body["edps"][0]["levyGbp"] == {
        "amountExcludingVat": 6811.32,
        "amountInflationAdjusted": 6811.32,
        "baseAmount": 6580.98,
        "modelVersion": 1,
    }
    # The text sent carries exactly those pennies.
    assert '"baseAmount": 6580.98' in quote_update_json(site(pricing=pricing))
    assert_valid_patch(body)


def test_nothing_beyond_the_schema_is_sent() -> None:
    body = quote_update(site(catchments=CATCHMENTS, pricing=norfolk_pricing()))
    [entry] = body["edps"]
    assert set(body) == {"edps"}
    assert set(entry) == {"edpId", "edpName", "edpType", "impact", "catchments", "levyGbp"}
    assert set(entry["levyGbp"]) == {
        "amountExcludingVat",
        "amountInflationAdjusted",
        "baseAmount",
        "modelVersion",
    }


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        (-0.4, 1),  # a net reduction is at most 0.25
        (0.0, 1),
        (0.25, 1),  # upper-inclusive
        (0.26, 2),
        (2.0, 2),
        (2.01, 3),
        (5.0, 3),
        (5.01, 4),
        (71.06, 4),
    ],
)
def test_bands_are_upper_inclusive(amount: float, expected: int) -> None:
    assert band(amount) == expected


def test_the_band_is_of_the_amount_rounded_to_the_penny() -> None:
    # 0.254 rounds to 0.25 (band 1) although 0.254 itself is over 0.25; 5.004 -> 5.0, band 3.
    body = quote_update(site(n_total=0.254, p_total=5.004, pricing=norfolk_pricing()))
    impact = body["edps"][0]["impact"]
    assert impact["nitrogenTotal"] == {
        "amount": 0.25,
        "unit": "mg/I TP",
        "band": {"min": 1, "max": 1},
    }
    assert impact["phosphorusTotal"] == {
        "amount": 5.0,
        "unit": "mg/I TP",
        "band": {"min": 3, "max": 3},
    }


def test_a_catchment_share_goes_to_two_places_and_a_blank_id_as_null() -> None:
    # A third of the boundary: 33.333... -> 33.33.
    third = CatchmentOverlap(label="Broads SAC", catchment_id="", overlap_percentage=100 / 3)
    body = quote_update(site(catchments=(third,), pricing=norfolk_pricing()))
    assert body["edps"][0]["catchments"] == [
        {"label": "Broads SAC", "catchmentId": None, "catchmentOverlapPercentage": 33.33}
    ]
    assert_valid_patch(body)


@pytest.mark.parametrize(("text", "number"), [("1", 1), ("levy-2", 2), ("nrf-levy/12", 12)])
def test_the_model_version_is_the_number_ending_the_calculator_version(
    text: str, number: int
) -> None:
    assert model_version(text) == number


@pytest.mark.parametrize("text", ["", "v1.0a", "levy-0"])
def test_a_calculator_version_without_a_number_is_an_error(text: str) -> None:
    with pytest.raises(ValueError):
        model_version(text)


def test_a_site_without_a_priced_levy_has_no_body() -> None:
    with pytest.raises(ValueError):
        quote_update(site(pricing=None))


def _valid_body() -> dict:
    return quote_update(site(catchments=CATCHMENTS, pricing=norfolk_pricing()))


def test_the_schema_refuses_an_extra_key_anywhere() -> None:
    for path in ((), ("edps", 0), ("edps", 0, "levyGbp"), ("edps", 0, "impact", "nitrogenTotal")):
        body = copy.deepcopy(_valid_body())
        target = body
        for step in path:
            target = target[step]
        target["provenance"] = {"bundleName": "x"}
        assert patch_errors(body), path


def test_the_schema_refuses_a_text_edp_id() -> None:
    body = _valid_body()
    body["edps"][0]["edpId"] = "1"
    assert any("edpId" in e for e in patch_errors(body))


def test_the_schema_refuses_a_band_of_5() -> None:
    body = _valid_body()
    body["edps"][0]["impact"]["nitrogenTotal"]["band"] = {"min": 5, "max": 5}
    assert len(patch_errors(body)) == 2  # both ends


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("levyGbp", "baseAmount"), 26750.005),  # three places
        (("levyGbp", "amountExcludingVat"), -1.0),  # below 0
        (("levyGbp", "modelVersion"), 0),
        (("impact", "nitrogenTotal", "unit"), "kg/year"),
        (("edpType",), "BIODIVERSITY"),
        (("catchments", 0, "catchmentOverlapPercentage"), 100.5),
    ],
)
def test_the_schema_refuses_other_wrong_values(where: tuple, value: object) -> None:
    body = _valid_body()
    target = body["edps"][0]
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    assert patch_errors(body)


def test_the_body_is_plain_json() -> None:
    text = quote_update_json(site(catchments=CATCHMENTS, pricing=norfolk_pricing()))
    assert json.loads(text) == _valid_body()
