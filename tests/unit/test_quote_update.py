"""The backend's PATCH body: exactly its schema, one entry for the job's EDP, bands and levy."""

from __future__ import annotations

import copy
import json
from datetime import date
from decimal import Decimal

import pytest

from nrf.domain.charging import price_levy
from nrf.domain.levy_rounding import LevyRounding
from nrf.domain.model import LevyCharge
from nrf.domain.quote_update import band, model_version, quote_update, quote_update_json
from nrf.domain.results import CatchmentOverlap, IndexRow, LevyPricing
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
    # The backend prints amountExcludingVat in its email as the provisional levy: the
    # un-indexed 6 580.98, as Defra's mapper sends it; the indexed amount has its own field.
    assert body["edps"][0]["levyGbp"] == {
        "amountExcludingVat": 6580.98,
        "amountInflationAdjusted": 6811.32,
        "baseAmount": 6580.98,
        "modelVersion": 1,
    }
    # The text sent carries exactly those pennies.
    assert '"baseAmount": 6580.98' in quote_update_json(site(pricing=pricing))
    assert_valid_patch(body)


EAST_INDEX = {
    2025: IndexRow(charging_year=2025, cil_index=Decimal("391"), index_factor=Decimal("0.9775")),
    2026: IndexRow(charging_year=2026, cil_index=Decimal("400"), index_factor=Decimal("1.0000")),
    2027: IndexRow(charging_year=2027, cil_index=Decimal("412"), index_factor=Decimal("1.0300")),
}


@pytest.mark.parametrize(
    ("on", "indexed"),
    [
        # 10 homes at £2,675 from an EDP that started in 2025 (factor 0.9775 = 391/400).
        # 2026 (1.0000): 26 750 x 400 / 391 = 10 700 000 / 391 = 27 365.7289... (391 x 27 365 =
        #   10 699 715, remainder 285, 285/391 = 0.7289) -> 27 365.73.
        # 2027 (1.0300): 26 750 x 1.03 x 400 / 391 = 11 021 000 / 391 = 28 186.7007... (391 x
        #   28 186 = 11 020 726, remainder 274, 274/391 = 0.7008) -> 28 186.70.
        (date(2026, 6, 1), 27365.73),
        (date(2027, 6, 1), 28186.70),
    ],
)
def test_a_later_years_quote_sends_the_provisional_amount_as_the_amount_excluding_vat(
    on: date, indexed: float
) -> None:
    east = LevyCharge(
        edp_id=1,
        edp_name="Norfolk EDP",
        edp_start_date=date(2025, 1, 1),
        charge_valid_from=date(2025, 1, 1),
        charge_valid_to=date(2027, 12, 31),
        base_charge_per_unit=Decimal("2675"),
    )
    pricing = price_levy(
        edp_id=1,
        edp_name="Norfolk EDP",
        units=10,
        quote_date=on,
        charges=[east],
        index=EAST_INDEX,
        vat_rate=Decimal("0.20"),
        rounding=LevyRounding.ROUND_TOTAL,
    )
    assert isinstance(pricing, LevyPricing)
    body = quote_update(site(pricing=pricing))
    # The provisional amount, 2 675 x 10 = 26 750.00, whatever the year; the indexed apart.
    assert body["edps"][0]["levyGbp"] == {
        "amountExcludingVat": 26750.0,
        "amountInflationAdjusted": indexed,
        "baseAmount": 26750.0,
        "modelVersion": 1,
    }
    assert_valid_patch(body)


@pytest.mark.parametrize(
    ("exact", "sent", "shown"),
    [
        # Python's round on the float, as Defra's mapper does: 0.015 is stored as
        # 0.01499999999999999944... so it goes down to 0.01 (band 1), where the IAT's
        # numpy-style rounding (x 100 = 1.5 exactly, half to even) gives 0.02; 2.675 is
        # 2.67499999999999982236...: 2.67 (band 3), the IAT's 2.68.
        (0.015, 0.01, 0.02),
        (2.675, 2.67, 2.68),
    ],
)
def test_patch_amounts_are_rounded_as_defras_mapper_rounds_them(
    exact: float, sent: float, shown: float
) -> None:
    # `shown` is the site's IAT figure (round2, kept for the 31-column CSV's conformance).
    body = quote_update(
        site(n_total=shown, p_total=shown, unrounded=(exact, exact), pricing=norfolk_pricing())
    )
    impact = body["edps"][0]["impact"]
    expected_band = 1 if sent <= 0.25 else 3
    for nutrient in ("nitrogenTotal", "phosphorusTotal"):
        assert impact[nutrient]["amount"] == sent
        assert impact[nutrient]["band"] == {"min": expected_band, "max": expected_band}
    assert_valid_patch(body)


def test_edp_name_is_sent_as_the_message_spelled_it() -> None:
    # The message said "norfolk  EDP " (case and spaces differ from the bundle's "Norfolk EDP"):
    # it matched, and the backend claims its placeholder by exactly that text.
    body = quote_update(site(pricing=norfolk_pricing()), ("Other EDP", "norfolk  EDP "))
    assert body["edps"][0]["edpName"] == "norfolk  EDP "
    # A message that named no EDP (or none that matches): the bundle's name.
    assert quote_update(site(pricing=norfolk_pricing()))["edps"][0]["edpName"] == "Norfolk EDP"


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


@pytest.mark.parametrize(
    "path",
    [
        (),
        ("edps", 0),
        ("edps", 0, "levyGbp"),
        ("edps", 0, "impact"),
        ("edps", 0, "impact", "nitrogenTotal"),
        ("edps", 0, "impact", "phosphorusTotal", "band"),
        ("edps", 0, "catchments", 0),
        ("edps", 0, "catchments", 1),
    ],
)
def test_the_schema_refuses_an_extra_key_anywhere(path: tuple[str | int, ...]) -> None:
    body = copy.deepcopy(_valid_body())
    target = body
    for step in path:
        target = target[step]
    target["provenance"] = {"bundleName": "x"}
    # Refused at that very object (Joi refuses unknown keys at every level), for that key.
    where = "/".join(map(str, path))
    [error] = patch_errors(body)
    assert error.startswith(f"{where}: ") and "'provenance'" in error, error


# Every key Defra's Joi schema marks required, at each level (its PATCH validation).
REQUIRED = [
    ("edps",),
    *[("edps", 0, k) for k in ("edpId", "edpName", "edpType", "impact", "levyGbp")],
    *[
        ("edps", 0, "levyGbp", k)
        for k in ("amountExcludingVat", "amountInflationAdjusted", "baseAmount", "modelVersion")
    ],
    ("edps", 0, "impact", "nitrogenTotal"),
    ("edps", 0, "impact", "phosphorusTotal"),
    ("edps", 0, "impact", "nitrogenTotal", "amount"),
    ("edps", 0, "impact", "nitrogenTotal", "unit"),
    ("edps", 0, "impact", "phosphorusTotal", "band", "min"),
    ("edps", 0, "impact", "phosphorusTotal", "band", "max"),
    *[
        ("edps", 0, "catchments", 0, k)
        for k in ("label", "catchmentId", "catchmentOverlapPercentage")
    ],
]


@pytest.mark.parametrize("path", REQUIRED, ids=["/".join(map(str, p)) for p in REQUIRED])
def test_the_schema_refuses_a_body_missing_a_required_key(path: tuple[str | int, ...]) -> None:
    body = copy.deepcopy(_valid_body())
    target = body
    for step in path[:-1]:
        target = target[step]
    del target[path[-1]]
    where = "/".join(map(str, path[:-1]))
    assert patch_errors(body) == [f"{where}: '{path[-1]}' is a required property"]


def test_the_schema_refuses_an_empty_catchment_id() -> None:
    # Joi's string() refuses "" unless allowed; a catchment without an id is sent as null.
    body = _valid_body()
    body["edps"][0]["catchments"][0]["catchmentId"] = ""
    assert [e.split(":")[0] for e in patch_errors(body)] == ["edps/0/catchments/0/catchmentId"]
    body["edps"][0]["catchments"][0]["catchmentId"] = None
    assert_valid_patch(body)


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


def test_a_999999_unit_quote_is_sent_to_the_penny() -> None:
    # Defra's backend maximum. £2,675 x 999,999 = £2,674,997,325.00 provisional; quoted in
    # 2027 for an EDP that started 2025: x 1.0300 / 0.9775 = x 412/391, so 2,674,997,325 x 412
    # / 391 = 1,102,098,897,900 / 391; 391 x 2,818,667,258 = 1,102,098,897,878, remainder 22,
    # 22/391 = 0.0563 -> £2,818,667,258.06.
    east = LevyCharge(
        edp_id=1,
        edp_name="Norfolk EDP",
        edp_start_date=date(2025, 1, 1),
        charge_valid_from=date(2025, 1, 1),
        charge_valid_to=date(2027, 12, 31),
        base_charge_per_unit=Decimal("2675"),
    )
    pricing = price_levy(
        edp_id=1,
        edp_name="Norfolk EDP",
        units=999_999,
        quote_date=date(2027, 6, 1),
        charges=[east],
        index=EAST_INDEX,
        vat_rate=Decimal("0.20"),
        rounding=LevyRounding.ROUND_TOTAL,
    )
    assert isinstance(pricing, LevyPricing)
    body = quote_update(site(pricing=pricing))
    assert body["edps"][0]["levyGbp"] == {
        "amountExcludingVat": 2674997325.0,
        "amountInflationAdjusted": 2818667258.06,
        "baseAmount": 2674997325.0,
        "modelVersion": 1,
    }
    assert '"amountInflationAdjusted": 2818667258.06' in quote_update_json(site(pricing=pricing))
    assert_valid_patch(body)
