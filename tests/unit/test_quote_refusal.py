"""Which Defra quotes get no levy and so no PATCH, and the one code each fails with."""

from __future__ import annotations

import pytest

from nrf.domain.quote_refusal import quote_refusal
from nrf.domain.results import LevyRefusal, OutOfScopeSite
from support.defra_sites import BROADS, IDENTITY, NORFOLK, norfolk_pricing, run_of, site

EDP_LAYER = {1: "Norfolk EDP", 2: "Broads EDP"}
PRICED = site(edps=(NORFOLK,), pricing=norfolk_pricing())


def code(refusal: LevyRefusal | None) -> str | None:
    return None if refusal is None else refusal.code


@pytest.mark.parametrize(
    "labels",
    [(), ("Norfolk EDP",), ("norfolk  edp",)],  # none named; named; case and spaces
)
def test_a_priced_site_whose_edp_agrees_is_answered(labels: tuple[str, ...]) -> None:
    assert quote_refusal(run_of(PRICED), labels, EDP_LAYER) is None


def test_a_name_the_edp_layer_does_not_hold_is_edp_unknown() -> None:
    refusal = quote_refusal(run_of(PRICED), ("Suffolk EDP",), EDP_LAYER)
    assert code(refusal) == "edp_unknown"
    assert refusal is not None and "'Suffolk EDP'" in refusal.message


def test_a_name_held_under_two_ids_is_edp_unknown() -> None:
    layer = {1: "Norfolk EDP", 7: "Norfolk EDP"}
    refusal = quote_refusal(run_of(PRICED), ("Norfolk EDP",), layer)
    assert code(refusal) == "edp_unknown"
    assert refusal is not None and "more than one id" in refusal.message


def test_other_edps_than_the_boundary_meets_is_edp_mismatch_naming_both() -> None:
    refusal = quote_refusal(run_of(PRICED), ("Broads EDP",), EDP_LAYER)
    assert code(refusal) == "edp_mismatch"
    assert refusal is not None
    assert "'Broads EDP'" in refusal.message and "'Norfolk EDP'" in refusal.message


def test_one_name_for_a_boundary_meeting_two_edps_is_a_mismatch() -> None:
    both = site(edps=(NORFOLK, BROADS), refusal=LevyRefusal("multiple_edps", "two EDPs"))
    assert code(quote_refusal(run_of(both), ("Norfolk EDP",), EDP_LAYER)) == "edp_mismatch"
    # Named both, as the geometry finds: the assessment's own refusal stands.
    named = ("Norfolk EDP", "Broads EDP")
    assert code(quote_refusal(run_of(both), named, EDP_LAYER)) == "multiple_edps"


@pytest.mark.parametrize(
    "refused", ["no_housing_units", "no_edp", "no_charge_for_date", "inflation_index_missing"]
)
def test_the_assessments_own_refusal_is_the_code(refused: str) -> None:
    refusal = LevyRefusal(refused, "plain words")
    assert quote_refusal(run_of(site(refusal=refusal)), (), EDP_LAYER) == refusal


def test_an_excluded_area_comes_before_the_names() -> None:
    # Whatever the message names, the route is a Habitats Regulations Assessment.
    refusal = LevyRefusal("excluded_area", "meets Somewhere SSSI: a HRA is needed")
    excluded = site(refusal=refusal, excluded=("Somewhere SSSI",))
    assert quote_refusal(run_of(excluded), ("Suffolk EDP",), EDP_LAYER) == refusal


def test_an_out_of_scope_site_fails_with_its_reason() -> None:
    away = OutOfScopeSite(IDENTITY, "outside_nn_catchments", "the site is in no NN catchment")
    refusal = quote_refusal(run_of(out=(away,)), ("Norfolk EDP",), EDP_LAYER)
    assert refusal == LevyRefusal("outside_nn_catchments", "the site is in no NN catchment")


def test_a_site_with_neither_price_nor_refusal_is_not_answered() -> None:
    assert code(quote_refusal(run_of(site()), (), EDP_LAYER)) == "no_levy"


def test_an_edp_without_a_name_is_edp_unknown_in_plain_words() -> None:
    refusal = quote_refusal(run_of(PRICED), ("",), EDP_LAYER)
    assert code(refusal) == "edp_unknown"
    assert refusal is not None and "an EDP without a name" in refusal.message
