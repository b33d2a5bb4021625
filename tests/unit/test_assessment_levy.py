"""A site's EDPs, NN catchment shares, excluded areas and levy, worked by hand on a small layout.

Layout (metres east and north of X0, Y0): the Wensum catchment 0-1000, the Broads 1000-2000
(also drawn again, overlapping, over 1500-2000); EDP 1 drawn as two overlapping polygons, 0-1000
and 500-2000; EDP 9 over 2000-3000; an excluded area 100-200 east by 800-900 north.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import shapely
from shapely.geometry import box

from nrf.domain.assessment import AssessDevelopments, assess_site
from nrf.domain.edp_geography import edp_overlaps
from nrf.domain.model import (
    CoefficientPolygon,
    Development,
    EdpPolygon,
    ExcludedArea,
    NnCatchment,
    Zone,
)
from nrf.domain.quote_update import quote_update
from nrf.domain.results import CatchmentOverlap, EdpOverlap, SiteAssessment
from nrf.domain.rules import rule_set_named
from nrf.domain.site_outlines import CLIP_FROM_VERTICES
from support.backend_schema import patch_errors
from support.reference import (
    NORFOLK_EDP,
    QUOTE_DATE,
    InMemoryBoundaryData,
    levy_charge,
    permit,
)

RULES = rule_set_named("iat-2026-04")
X0, Y0 = 600_000.0, 300_000.0
WENSUM, BROADS = "River Wensum SAC", "The Broads SAC"


def at(x0: float, y0: float, x1: float, y1: float) -> box:
    return box(X0 + x0, Y0 + y0, X0 + x1, Y0 + y1)


UNLABELLED = (
    NnCatchment(geometry=at(0, 0, 1000, 1000), n2k_site_name=WENSUM, edp_id="11"),
    NnCatchment(geometry=at(1000, 0, 2000, 1000), n2k_site_name=BROADS, edp_id="12"),
    NnCatchment(geometry=at(1500, 0, 2000, 1000), n2k_site_name=BROADS, edp_id="12"),
)


def repo(*, edps: bool = True, nn: tuple[NnCatchment, ...] = UNLABELLED) -> InMemoryBoundaryData:
    return InMemoryBoundaryData(
        nn=nn,
        wwtw=[Zone(at(0, 0, 3000, 1000), 1065)],
        coefficients=[
            CoefficientPolygon(
                geometry=at(-5000, -5000, 5000, 5000),
                lu_curr_n_coeff=5.57,
                lu_curr_p_coeff=0.24,
                n_resi_coeff=12.0,
                p_resi_coeff=0.5,
            )
        ],
        permits=[permit(1065, "Sculthorpe")],
        edps=[
            EdpPolygon(at(0, 0, 1000, 1000), 1, NORFOLK_EDP),
            EdpPolygon(at(500, 0, 2000, 1000), 1, NORFOLK_EDP),
            EdpPolygon(at(2000, 0, 3000, 1000), 9, "Other EDP"),
        ]
        if edps
        else [],
        excluded=[ExcludedArea(at(100, 800, 200, 900), "Test SSSI buffer")],
        charges=[levy_charge(), levy_charge(9, "Other EDP", "1000.0000")],
    )


def dev(boundary: box, dwellings: int = 10, rlb_id: int = 1) -> Development:
    return Development(
        rlb_id=rlb_id,
        id=f"s{rlb_id}",
        name="site",
        dwelling_category="allocation",
        source="test",
        dwellings=dwellings,
        boundary=boundary,
    )


def assessed(
    boundary: box, dwellings: int = 10, quote_date: date | None = QUOTE_DATE, **kw: Any
) -> SiteAssessment:
    data = repo(**kw)
    result = assess_site(
        dev(boundary, dwellings), data.reference_for(boundary), data.lookups(), RULES, quote_date
    )
    assert isinstance(result, SiteAssessment)
    return result


def test_overlapping_polygons_of_one_key_are_dissolved_not_summed() -> None:
    # Site 900-1600 east by 100-200 north: 700 x 100 = 70,000 m2.
    result = assessed(at(900, 100, 1600, 200))
    # EDP 1: both its polygons meet the site (10,000 + 70,000 m2 if summed, 114 %); dissolved,
    # the whole site: 70,000 m2, 100 %.
    assert result.edps == (
        EdpOverlap(edp_id=1, edp_name=NORFOLK_EDP, overlap_m2=70_000.0, overlap_percentage=100.0),
    )
    # Wensum 900-1000: 10,000 / 70,000 = 14.2857 % -> 14.29. Broads 1000-1600: 60,000 m2
    # (summed with its second polygon 1500-1600 it would be 70,000): 85.714 % -> 85.71.
    assert result.catchment_overlaps == (
        CatchmentOverlap(label=WENSUM, catchment_id="11", overlap_percentage=14.29),
        CatchmentOverlap(label=BROADS, catchment_id="12", overlap_percentage=85.71),
    )
    assert result.excluded_areas == ()
    # One EDP, 10 homes, 2026: 2,675.00 x 10 = 26,750.00; VAT 5,350.00.
    assert result.levy_refusal is None and result.pricing is not None
    assert (result.pricing.edp_id, str(result.pricing.amount_excluding_vat)) == (1, "26750.00")
    assert str(result.pricing.vat) == "5350.00"


def test_a_site_in_two_edps_is_refused_and_lists_both() -> None:
    # Site 1900-2100: 200 x 100 = 20,000 m2; 10,000 m2 (50 %) in each of EDP 1 and EDP 9.
    result = assessed(at(1900, 100, 2100, 200))
    assert [(e.edp_id, e.overlap_m2, e.overlap_percentage) for e in result.edps] == [
        (1, 10_000.0, 50.0),
        (9, 10_000.0, 50.0),
    ]
    assert result.pricing is None and result.levy_refusal is not None
    assert result.levy_refusal.code == "multiple_edps"
    assert result.n_total is not None  # the nutrient figures still stand


def test_a_site_touching_a_neighbouring_edp_along_an_edge_meets_both_as_defra_does() -> None:
    # Site 1800-2000 by 100-200 (20,000 m2): its east edge lies on EDP 9's west edge. Defra's
    # ST_Intersects meets EDP 9 there, so the site is in two EDPs and refused; the figures
    # stay the areas: all 20,000 m2 (100 %) in EDP 1, 0 m2 (0 %) in EDP 9.
    result = assessed(at(1800, 100, 2000, 200))
    assert [(e.edp_id, e.overlap_m2, e.overlap_percentage) for e in result.edps] == [
        (1, 20_000.0, 100.0),
        (9, 0.0, 0.0),
    ]
    assert result.pricing is None and result.levy_refusal is not None
    assert result.levy_refusal.code == "multiple_edps"
    # A centimetre short of the edge (x 1800-1999.99) meets EDP 1 only, and is priced.
    apart = assessed(at(1800, 100, 1999.99, 200))
    assert [e.edp_id for e in apart.edps] == [1] and apart.pricing is not None


def test_a_sliver_into_the_next_edp_refuses_but_one_into_an_excluded_area_does_not() -> None:
    # Defra's newest check has one noise floor, 0.001 m2, and only for excluded areas; an EDP
    # counts on any contact. A 0.000005 m x 100 m = 0.0005 m2 sliver into EDP 9 is a meeting:
    # two EDPs, refused (a floor for EDPs would price it: this fails if one comes back).
    into_edp = assessed(at(1800, 100, 2000.000005, 200))
    assert [e.edp_id for e in into_edp.edps] == [1, 9]
    assert into_edp.levy_refusal is not None and into_edp.levy_refusal.code == "multiple_edps"
    # The same 0.0005 m2 sliver into the excluded area (east edge x = 200, 800-900 north) of a
    # site otherwise in EDP 1 alone is noise: the site is quoted (this fails if the 0.001 m2
    # floor is dropped, when the sliver would refuse a quotable site as excluded).
    into_excluded = assessed(at(199.999995, 800, 300, 900))
    assert into_excluded.excluded_areas == () and into_excluded.levy_refusal is None
    assert into_excluded.pricing is not None and into_excluded.pricing.edp_id == 1


def test_an_excluded_area_refuses_the_levy_but_keeps_the_figures() -> None:
    # Site 150-250 by 850-950 meets the excluded area (100-200 by 800-900) over 50 x 50 m.
    result = assessed(at(150, 850, 250, 950))
    assert result.excluded_areas == ("Test SSSI buffer",)
    assert result.pricing is None and result.levy_refusal is not None
    assert result.levy_refusal.code == "excluded_area"
    assert "Test SSSI buffer" in result.levy_refusal.message
    assert result.n_total is not None and result.edps[0].edp_id == 1


def test_touching_or_a_sliver_of_an_excluded_area_does_not_exclude() -> None:
    # Sharing the area's east edge (x = 200): nothing in common.
    assert assessed(at(200, 800, 300, 900)).excluded_areas == ()
    # 0.000005 m x 100 m = 0.0005 m2 inside: at most 0.001 m2 is not a meeting.
    assert assessed(at(199.999995, 800, 300, 900)).excluded_areas == ()
    # 0.00002 m x 100 m = 0.002 m2 inside: more than 0.001 m2, excluded.
    assert assessed(at(199.99998, 800, 300, 900)).excluded_areas == ("Test SSSI buffer",)


def test_no_edp_no_units_and_a_date_with_no_charge_are_refused() -> None:
    site = at(100, 100, 300, 200)
    no_edp = assessed(site, edps=False)
    assert no_edp.levy_refusal is not None and no_edp.levy_refusal.code == "no_edp"
    assert no_edp.catchment_overlaps[0].label == WENSUM  # the split by catchment stays
    no_units = assessed(site, dwellings=0)
    assert no_units.levy_refusal is not None and no_units.levy_refusal.code == "no_housing_units"
    late = assessed(site, quote_date=date(2028, 1, 1))
    assert late.levy_refusal is not None and late.levy_refusal.code == "no_charge_for_date"


def test_a_later_quote_date_is_indexed() -> None:
    # 2027: 2675 x 1.0300 / 1.0000 = 2,755.25 a home; x 10 = 27,552.50.
    result = assessed(at(100, 100, 300, 200), quote_date=date(2027, 6, 30))
    assert result.pricing is not None
    assert str(result.pricing.amount_excluding_vat) == "27552.50"


def test_without_a_quote_date_the_levy_is_not_asked_for() -> None:
    result = assessed(at(100, 100, 300, 200), quote_date=None)
    assert (result.pricing, result.levy_refusal) == (None, None)
    assert result.edps[0].edp_id == 1


def test_the_run_totals_the_priced_sites_excluding_vat() -> None:
    # 10 homes (26,750.00) + 3 homes (8,025.00) priced; the two-EDP site adds nothing:
    # 34,775.00.
    devs = [
        dev(at(100, 100, 300, 200), 10, 1),
        dev(at(400, 100, 500, 200), 3, 2),
        dev(at(1900, 300, 2100, 400), 50, 3),
    ]
    run = AssessDevelopments(repo())(devs, RULES, QUOTE_DATE)
    assert [s.pricing is not None for s in run.sites] == [True, True, False]
    assert run.levy_total_excluding_vat == Decimal("34775.00")


def test_a_detailed_outline_is_measured_as_exactly_as_a_plain_one() -> None:
    # EDP 1's west part as a square with a vertex every metre (4,000 vertices: the clipped
    # path); the site 900-1100 by 100-200 has 100 x 100 = 10,000 of its 20,000 m2 inside.
    detailed = shapely.segmentize(at(-1000, 0, 1000, 1000), 1.0)
    assert shapely.get_num_coordinates(detailed) > CLIP_FROM_VERTICES
    site = at(900, 100, 1100, 200)
    [overlap] = edp_overlaps(site, [EdpPolygon(detailed, 1, NORFOLK_EDP)])
    assert (overlap.overlap_m2, overlap.overlap_percentage) == (10_000.0, 50.0)


def test_a_catchment_the_site_only_touches_is_not_listed() -> None:
    # Site 1000-1200 by 100-200: its west edge lies on the Wensum's east edge (x 1000). A
    # catchment counts on a positive area only (unlike an EDP), so the PATCH lists the Broads
    # alone, at 100 %, and no Wensum at 0 %.
    result = assessed(at(1000, 100, 1200, 200))
    assert result.catchment_overlaps == (
        CatchmentOverlap(label=BROADS, catchment_id="12", overlap_percentage=100.0),
    )


def test_labelled_catchments_are_listed_apart_but_the_iat_split_stays_per_n2k_site() -> None:
    # The Broads as Defra's current layer draws it: two labelled catchments, each its own OID,
    # "Bure" 1000-1500 (OID 14) and "Yare" 1500-2000 (OID 13; drawn twice, as 12 too).
    labelled = (
        UNLABELLED[0],
        NnCatchment(
            geometry=at(1000, 0, 1500, 1000), n2k_site_name=BROADS, edp_id="14", label="Bure"
        ),
        NnCatchment(
            geometry=at(1500, 0, 2000, 1000), n2k_site_name=BROADS, edp_id="13", label="Yare"
        ),
        NnCatchment(
            geometry=at(1500, 0, 2000, 1000), n2k_site_name=BROADS, edp_id="12", label="Yare"
        ),
    )
    site = at(900, 100, 1600, 200)  # 70,000 m2
    result = assessed(site, nn=labelled)
    # Wensum 900-1000: 10,000 m2 = 14.29 %; Bure 1000-1500: 50,000 m2 = 71.43 %; Yare
    # 1500-1600: 10,000 m2 = 14.29 % (its two polygons dissolved), id the lower OID, 12.
    assert result.catchment_overlaps == (
        CatchmentOverlap(label="Bure", catchment_id="14", overlap_percentage=71.43),
        CatchmentOverlap(label=WENSUM, catchment_id="11", overlap_percentage=14.29),
        CatchmentOverlap(label="Yare", catchment_id="12", overlap_percentage=14.29),
    )
    # The IAT's split is per N2K site still (the Broads one row, id its lowest OID, 12), and
    # every figure is the one the unlabelled layer gives: the labels move no N or P.
    before = assessed(site)
    assert [(c.n2k_site_name, c.lowest_oid) for c in result.catchments] == [
        (WENSUM, "11"),
        (BROADS, "12"),
    ]
    assert result.catchments == before.catchments
    assert (result.n_total, result.p_total) == (before.n_total, before.p_total)
    # The PATCH lists the three, as Defra's mapper does, and the backend's schema takes it.
    body = quote_update(result)
    assert body["edps"][0]["catchments"] == [
        {"label": "Bure", "catchmentId": "14", "catchmentOverlapPercentage": 71.43},
        {"label": WENSUM, "catchmentId": "11", "catchmentOverlapPercentage": 14.29},
        {"label": "Yare", "catchmentId": "12", "catchmentOverlapPercentage": 14.29},
    ]
    assert patch_errors(body) == []
