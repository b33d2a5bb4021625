"""GetQuote and CheckBoundary against in-memory reference data, worked by hand."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from fakes import FakeClock
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.errors import InvalidInput
from nrf.domain.model import EdpPolygon, ExcludedArea
from nrf.domain.overlaps import Overlap
from nrf.domain.validation import InputLimits, RawFeature
from nrf.service_layer.boundary_checks import CheckBoundary
from nrf.service_layer.quotes import GetQuote, QuoteRequest, stamped
from support.reference import QUOTE_MOMENT, STRIP_ORIGIN, InMemoryBoundaryData
from support.reference import two_catchment_strip as repo

X0, Y0 = STRIP_ORIGIN


SITE = {"id": "s", "name": "Site", "dwelling_category": "housing", "source": "", "dwellings": 10}


def raw(geometry: object, **properties: object) -> RawFeature:
    return RawFeature(index=1, properties=properties, geometry=geometry)


CLOCK = FakeClock(QUOTE_MOMENT)


def raw_at(index: int, geometry: object, properties: dict[str, object]) -> RawFeature:
    return RawFeature(index=index, properties=properties, geometry=geometry)


def test_a_quote_uses_the_rules_asked_for_else_the_default() -> None:
    quote = GetQuote(AssessDevelopments(repo()), default_rules="iat-2025-10", clock=CLOCK)
    site = raw(box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200), **SITE)
    default = quote(QuoteRequest(features=(site,))).run
    assert default.provenance.rule_set == "iat-2025-10"
    asked = quote(QuoteRequest(features=(site,), rules="iat-2025-09"))
    assert asked.run.provenance.rule_set == "iat-2025-09"
    assert [d.id for d in asked.developments] == ["s"]
    # The rules reach the figures, not just the label: 10 x 2.4 x 120 = 2880 l/day x 365.25
    # = 1,051,920 l/year x 10 mg/l = 10.5192 kg N at 100 % (September), 9.46728 at 90 %.
    assert (default.sites[0].n_wwtw_perm, asked.run.sites[0].n_wwtw_perm) == (9.47, 10.52)


def test_a_quote_refuses_more_sites_than_the_limit() -> None:
    quote = GetQuote(AssessDevelopments(repo()), InputLimits(max_features=1), clock=CLOCK)
    sites = tuple(
        raw_at(i + 1, box(X0 + i * 10, Y0, X0 + i * 10 + 5, Y0 + 5), dict(SITE)) for i in (0, 1)
    )
    with pytest.raises(InvalidInput) as caught:
        quote(QuoteRequest(features=sites))
    assert caught.value.codes == ["too_many_features"]


def test_form_fields_overlay_the_files_properties() -> None:
    [feature] = stamped([raw(None, name="file", dwellings=3)], {"dwellings": "7"})
    assert dict(feature.properties) == {"name": "file", "dwellings": "7"}


def test_a_reference_given_applies_to_a_file_of_one_site_only() -> None:
    [one] = stamped([raw(None, id="file-ref", dwellings=3)], {"id": "REF-9", "dwellings": "7"})
    assert dict(one.properties) == {"id": "REF-9", "dwellings": "7"}
    two = stamped(
        [raw_at(1, None, {"id": "a"}), raw_at(2, None, {"id": "b"})],
        {"id": "REF-9", "dwellings": "7"},
    )
    # Each of two sites keeps its own id; the other fields still apply to both.
    assert [dict(f.properties) for f in two] == [
        {"id": "a", "dwellings": "7"},
        {"id": "b", "dwellings": "7"},
    ]


def test_a_boundary_across_two_catchments_is_split_by_area() -> None:
    # 200 m x 100 m = 2 ha straddling x = X0 + 1000: 1 ha (50 %) in each catchment.
    check = CheckBoundary(repo())
    result = check(QuoteRequest(features=(raw(box(X0 + 900, Y0 + 100, X0 + 1100, Y0 + 200)),)))
    [site] = result.sites
    assert (site.id, site.name, site.area_ha) == ("1", "1", 2.0)
    assert site.nn_catchments == (
        Overlap(name="River Wensum SAC", edp_id="1", area_ha=1.0, share_percent=50.0),
        Overlap(name="The Broads SAC", edp_id="2", area_ha=1.0, share_percent=50.0),
    )
    # Both catchments lie in one EDP (the Norfolk EDP over the whole 2 km strip): one EDP,
    # all 20,000 m2 (100 %) of the site, 50 % of it in each catchment; no excluded area.
    assert [(e.edp_id, e.overlap_m2, e.overlap_percentage) for e in site.intersecting_edps] == [
        (1, 20000.0, 100.0)
    ]
    [inside] = site.edp_catchments
    assert [(c.label, c.overlap_percentage) for c in inside] == [
        ("River Wensum SAC", 50.0),
        ("The Broads SAC", 50.0),
    ]
    assert site.intersecting_excluded_areas == ()
    assert (site.majority_wwtw_id, site.wwtw_name) == (1065, "Sculthorpe")
    assert (site.majority_lpa, site.subcatchment, site.in_scope) == ("Breckland", "Wensum", True)


def test_a_boundary_outside_every_catchment_says_why_it_is_out_of_scope() -> None:
    # South of the strip: works 2002 has no permit row and there is no NN catchment.
    check = CheckBoundary(repo())
    feature = raw(box(X0 + 100, Y0 - 300, X0 + 200, Y0 - 200), id="south", name="South")
    [site] = check(QuoteRequest(features=(feature,))).sites
    assert (site.id, site.name, site.nn_catchments, site.majority_wwtw_id) == (
        "south",
        "South",
        (),
        2002,
    )
    assert (site.in_scope, site.reason_code) == (False, "outside_catchments_no_wwtw")


def test_a_boundary_check_still_refuses_bad_geometry() -> None:
    bow_tie = box(0, 0, 1, 1).exterior  # a ring, not a polygon
    with pytest.raises(InvalidInput) as caught:
        CheckBoundary(repo())(QuoteRequest(features=(raw(bow_tie),)))
    assert caught.value.codes == ["no_polygon_found", "unsupported_geometry_type"]


def test_a_boundary_check_reports_each_edp_with_its_catchments_and_excluded_areas() -> None:
    # The strip's two catchments (Wensum x < X0+1000, Broads east of it) under two EDPs that
    # split at x = X0 + 1050, the Norfolk EDP drawn as two overlapping polygons, and an
    # excluded area. The site: x X0+900..X0+1100, y Y0+100..Y0+200, 200 m x 100 m = 20,000 m2.
    strip = repo()
    norfolk = [
        EdpPolygon(box(X0, Y0, X0 + 1050, Y0 + 1000), 1, "Norfolk EDP"),
        EdpPolygon(box(X0 + 950, Y0, X0 + 1050, Y0 + 1000), 1, "Norfolk EDP"),  # overlaps
    ]
    data = InMemoryBoundaryData(
        nn=strip.reference_for(box(X0, Y0, X0 + 2000, Y0 + 1000)).nn_catchments,
        wwtw=strip.reference_for(box(X0, Y0, X0 + 2000, Y0 + 1000)).wwtw_catchments,
        edps=[*norfolk, EdpPolygon(box(X0 + 1050, Y0, X0 + 2000, Y0 + 1000), 2, "Broads EDP")],
        excluded=[ExcludedArea(box(X0 + 1090, Y0 + 190, X0 + 1200, Y0 + 300), "Fen SSSI")],
    )
    [site] = CheckBoundary(data)(
        QuoteRequest(features=(raw(box(X0 + 900, Y0 + 100, X0 + 1100, Y0 + 200)),))
    ).sites
    # Norfolk: x 900..1050 = 150 m x 100 m = 15,000 m2 (the overlap counted once), 75 %;
    #   its catchments: Wensum x 900..1000 = 10,000 m2 = 50 %, Broads x 1000..1050 = 25 %.
    # Broads EDP: x 1050..1100 = 5,000 m2 = 25 %, all of it in the Broads catchment.
    assert [
        (e.edp_id, e.edp_name, e.overlap_m2, e.overlap_percentage) for e in site.intersecting_edps
    ] == [
        (1, "Norfolk EDP", 15000.0, 75.0),
        (2, "Broads EDP", 5000.0, 25.0),
    ]
    assert [
        [(c.label, c.overlap_percentage) for c in inside] for inside in site.edp_catchments
    ] == [
        [("River Wensum SAC", 50.0), ("The Broads SAC", 25.0)],
        [("The Broads SAC", 25.0)],
    ]
    # The SSSI's corner x 1090..1100, y 190..200 = 100 m2 lies inside the site.
    assert site.intersecting_excluded_areas == ("Fen SSSI",)
