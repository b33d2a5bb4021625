"""Validation of raw boundary features: every problem, stable codes, exact round-trips."""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Point, Polygon, box

from nrf.domain.errors import InvalidInput
from nrf.domain.validation import (
    InputLimits,
    RawFeature,
    geometry_problems,
    validate_features,
)

SITE = box(600_000, 300_000, 600_100, 300_100)  # 100 m x 100 m = 1 ha, in Norfolk
GOOD = {
    "id": "A1",
    "name": "Site",
    "dwelling_category": "housing",
    "source": "test",
    "dwellings": 5,
}
LIMITS = InputLimits()


def raw(
    index: int = 1,
    geometry: object = SITE,
    crs: str = "EPSG:27700",
    **changes: object,
) -> RawFeature:
    return RawFeature(index=index, properties={**GOOD, **changes}, geometry=geometry, crs=crs)


def problems_of(
    *features: RawFeature, limits: InputLimits = LIMITS
) -> list[tuple[str, int | None]]:
    with pytest.raises(InvalidInput) as caught:
        validate_features(features, limits)
    return [(p.code, p.feature) for p in caught.value.problems]


def only_code(feature: RawFeature, limits: InputLimits = LIMITS) -> str:
    found = problems_of(feature, limits=limits)
    assert len(found) == 1, found
    return found[0][0]


def test_a_valid_feature_becomes_a_development() -> None:
    (development,) = validate_features([raw()], LIMITS)
    assert development.rlb_id == 1
    assert (development.id, development.name, development.dwelling_category) == (
        "A1",
        "Site",
        "housing",
    )
    assert (development.source, development.dwellings) == ("test", 5)
    assert development.boundary.equals(SITE)


def test_rlb_id_follows_input_order() -> None:
    developments = validate_features([raw(1, id="x"), raw(2, id="y"), raw(3, id="z")], LIMITS)
    assert [(d.rlb_id, d.id) for d in developments] == [(1, "x"), (2, "y"), (3, "z")]


def test_duplicate_ids_are_allowed() -> None:
    assert len(validate_features([raw(1, id="same"), raw(2, id="same")], LIMITS)) == 2


def test_legacy_column_names_are_accepted() -> None:
    legacy = {"id": 7, "Name": "N", "Dwel_Cat": "flats", "Source": "S", "Dwellings": 3}
    (development,) = validate_features(
        [RawFeature(index=1, properties=legacy, geometry=SITE)], LIMITS
    )
    assert (development.id, development.name, development.dwelling_category) == ("7", "N", "flats")
    assert (development.source, development.dwellings) == ("S", 3)


def test_snake_case_wins_over_a_legacy_column() -> None:
    (development,) = validate_features([raw(Dwellings=99, Name="legacy")], LIMITS)
    assert (development.dwellings, development.name) == (5, "Site")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (20191920, "20191920"),
        (20191920.0, "20191920"),
        (np.int64(42), "42"),
        (12.5, "12.5"),
        ("24/00119/F", "24/00119/F"),
        ("  padded ", "padded"),
    ],
)
def test_ids_become_strings(value: object, expected: str) -> None:
    assert validate_features([raw(id=value)], LIMITS)[0].id == expected


@pytest.mark.parametrize("blank", [None, "", "   ", math.nan])
def test_blank_name_and_source_become_empty_strings(blank: object) -> None:
    (development,) = validate_features([raw(name=blank, source=blank)], LIMITS)
    assert (development.name, development.source) == ("", "")


@pytest.mark.parametrize("column", ["id", "dwelling_category", "dwellings"])
@pytest.mark.parametrize("blank", [None, "", "  "])
def test_required_values_may_not_be_blank(column: str, blank: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        validate_features(
            [RawFeature(index=3, properties={**GOOD, column: blank}, geometry=SITE)], LIMITS
        )
    (problem,) = caught.value.problems
    assert (problem.code, problem.feature, problem.field) == ("missing_value", 3, column)
    assert problem.message.startswith(f"feature 3: {column} is empty")


@pytest.mark.parametrize(
    "value",
    [
        -2,
        -1.0,
        19.5,
        "19.5",
        "abc",
        "1_000",
        True,
        False,
        math.nan,
        math.inf,
        -math.inf,
        "nan",
        1_000_000,  # one over Defra's backend maximum, 999,999
        "1000000",
        1e6,
        [1],
        {"n": 1},
        # Issue 31: number forms no planner writes for a count ("1e3" was priced as 1,000).
        "1e3",
        "1E3",
        "2e0",
        "-0",
        "0x10",
        "\u0663",  # ARABIC-INDIC DIGIT THREE
        "1 000",
    ],
)
def test_invalid_dwellings(value: object) -> None:
    assert only_code(raw(dwellings=value)) == "invalid_dwellings"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, 0),
        (19.0, 19),
        ("19", 19),
        (" 7 ", 7),
        ("19.0", 19),
        (100_000, 100_000),
        (999_999, 999_999),  # Defra's backend maximum (residentialBuildingCount)
        ("999999", 999_999),
        (np.int64(5), 5),
        (np.float64(6.0), 6),
        ("+3", 3),
    ],
)
def test_dwellings_that_are_whole_numbers_are_accepted(value: object, expected: int) -> None:
    assert validate_features([raw(dwellings=value)], LIMITS)[0].dwellings == expected


@pytest.mark.parametrize("value", [{"a": 1}, [1, 2], ["x"], {}])
@pytest.mark.parametrize("column", ["id", "name", "dwelling_category", "source"])
def test_an_object_or_list_is_refused_as_text_not_written_as_python(
    column: str, value: object
) -> None:
    # Issue 31: an id of {"a": 1} became the text "{'a': 1}".
    with pytest.raises(InvalidInput) as caught:
        feature = RawFeature(index=1, properties={**GOOD, column: value}, geometry=SITE)
        validate_features([feature], LIMITS)
    (problem,) = caught.value.problems
    assert (problem.code, problem.field) == ("invalid_text", column)
    assert "must be text or a number" in problem.message


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("North\r\nField", "North  Field"),
        ("a\x00b", "a b"),
        ("tab\there", "tab here"),
        ("\u202etxt.exe", "txt.exe"),
        ("left\u2066iso\u2069 \u200fmark", "leftiso mark"),
        ("caf\u00e9 \u2014 ok", "caf\u00e9 \u2014 ok"),  # ordinary text untouched
        ("\x85next\x9f", "next"),  # C1 controls, then stripped
        # Unicode's own line and paragraph breaks: Python's splitlines (and so many CSV
        # readers) starts a row there, so "N\u2028=cmd|..." put a formula at a row's start.
        ("N\u2028=cmd|' /C calc'!A0", "N =cmd|' /C calc'!A0"),
        ("one\u2029two", "one two"),
    ],
)
def test_control_and_bidi_characters_in_site_text_are_neutralised(given: str, shown: str) -> None:
    # Issue 31: NUL, CR/LF and U+202E reached the CSV, the HTML report and emails.
    [site] = validate_features([raw(name=given, id=given, source=given)], LIMITS)
    assert (site.name, site.id, site.source) == (shown, shown, shown)


def test_text_of_only_controls_is_blank() -> None:
    with pytest.raises(InvalidInput) as caught:
        validate_features([raw(id="\r\n\u202e")], LIMITS)
    assert [p.code for p in caught.value.problems] == ["missing_value"]


def test_dwellings_message_names_feature_field_and_rule() -> None:
    with pytest.raises(InvalidInput) as caught:
        validate_features([raw(1), raw(2), raw(3, dwellings=-2)], LIMITS)
    (problem,) = caught.value.problems
    assert problem.message == "feature 3: dwellings is -2; it must be a whole number of 0 or more"
    assert (problem.feature, problem.field) == (3, "dwellings")


def test_a_missing_dwellings_column_is_named_with_the_files_own_columns() -> None:
    properties: Mapping[str, object] = {"id": "a", "Name": "n", "Source": "s"}
    with pytest.raises(InvalidInput) as caught:
        validate_features(
            [
                RawFeature(index=1, properties=properties, geometry=SITE),
                RawFeature(index=2, properties=properties, geometry=SITE),
            ]
        )
    [problem] = caught.value.problems
    assert (problem.code, problem.feature, problem.field) == ("missing_column", None, "dwellings")
    assert problem.message == (
        "the file has no dwellings column (or Dwellings); its columns are 'id', 'Name', 'Source'"
        "; give the number with --dwellings N (a file of one site), or name the column that "
        "holds it with --columns MAP (dwellings=COLUMN)"
    )


def test_a_file_with_only_name_and_dwellings_takes_the_documented_defaults() -> None:
    # Issue 19: a GeoJSON drawn by hand. id is the feature's position, category housing.
    drawn = [
        RawFeature(index=1, properties={"name": "North", "dwellings": 3}, geometry=SITE),
        RawFeature(index=2, properties={"dwellings": 5}, geometry=SITE),
    ]
    first, second = validate_features(drawn)
    assert (first.id, first.name, first.dwelling_category, first.source) == (
        "1",
        "North",
        "housing",
        "",
    )
    assert (second.id, second.name, second.dwellings) == ("2", "", 5)


def test_a_shapefile_s_cut_column_name_is_read() -> None:
    # A .dbf holds 10-character names: dwelling_category is saved as dwelling_c.
    [site] = validate_features([raw(dwelling_c="allocation")])
    assert site.dwelling_category != "allocation"  # GOOD's own dwelling_category comes first
    cut = {k: v for k, v in GOOD.items() if k != "dwelling_category"} | {"dwelling_c": "alloc"}
    [site] = validate_features([RawFeature(index=1, properties=cut, geometry=SITE)])
    assert site.dwelling_category == "alloc"


def test_a_column_missing_from_one_feature_only_is_a_missing_value() -> None:
    partial = RawFeature(
        index=2, properties={k: v for k, v in GOOD.items() if k != "dwellings"}, geometry=SITE
    )
    assert problems_of(raw(1), partial) == [("missing_value", 2)]


def test_every_problem_of_every_feature_is_reported() -> None:
    features = [
        raw(1, id=None, dwellings=-1),
        raw(2),
        raw(3, geometry=None, dwelling_category=""),
        raw(4, geometry=Point(600_000, 300_000), dwellings="x"),
    ]
    assert problems_of(*features) == [
        ("missing_value", 1),
        ("invalid_dwellings", 1),
        ("missing_value", 3),
        ("null_geometry", 3),
        ("invalid_dwellings", 4),
        ("unsupported_geometry_type", 4),
    ]


def _wkb_polygon(points: list[tuple[float, float]]) -> bytes:
    header = struct.pack("<BIII", 1, 3, 1, len(points))
    return header + b"".join(struct.pack("<dd", x, y) for x, y in points)


with np.errstate(invalid="ignore"):  # shapely warns about the NaN this geometry exists for
    NAN_SITE = shapely.from_wkb(
        _wkb_polygon(
            [(600_000, 300_000), (math.nan, 300_000), (600_100, 300_100), (600_000, 300_000)]
        )
    )
BOWTIE = Polygon([(600_000, 300_000), (600_100, 300_100), (600_100, 300_000), (600_000, 300_100)])
# The ring touches itself at a vertex: GEOS calls that "Ring Self-intersection".
PINCHED = Polygon(
    [
        (600_000, 300_000),
        (600_200, 300_000),
        (600_100, 300_100),
        (600_200, 300_200),
        (600_000, 300_200),
        (600_100, 300_100),
        (600_000, 300_000),
    ]
)


@pytest.mark.parametrize(
    ("geometry", "code"),
    [
        (None, "null_geometry"),
        (Point(600_000, 300_000), "unsupported_geometry_type"),
        (LineString([(600_000, 300_000), (600_010, 300_010)]), "unsupported_geometry_type"),
        (GeometryCollection([SITE]), "unsupported_geometry_type"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0))", "unsupported_geometry_type"),
        (Polygon(), "empty_geometry"),
        (MultiPolygon(), "empty_geometry"),
        (NAN_SITE, "non_finite_coordinates"),
        (box(600_000, 300_000, math.inf, 300_100), "non_finite_coordinates"),
        (
            shapely.from_wkb(_wkb_polygon([(6e5, 3e5), (6.001e5, 3e5), (6e5, 3e5)])),
            "invalid_geometry",
        ),
        (BOWTIE, "self_intersecting_geometry"),
        (box(1.2, 52.6, 1.3, 52.7), "coordinates_look_like_degrees"),
        (box(800_000, 300_000, 800_100, 300_100), "outside_great_britain"),
        (box(-100, 300_000, 100, 300_100), "outside_great_britain"),
        (Polygon([(600_000, 300_000), (600_050, 300_000), (600_100, 300_000)]), "zero_area"),
    ],
)
def test_geometry_codes(geometry: object, code: str) -> None:
    # Beside a good site, so the file as a whole still holds a polygon.
    assert problems_of(raw(geometry=geometry), raw(index=2)) == [(code, 1)]


def test_a_file_without_any_polygon_says_so_as_well() -> None:
    point = Point(600_000, 300_000)
    assert problems_of(raw(geometry=point), raw(index=2, geometry=None)) == [
        ("no_polygon_found", None),
        ("unsupported_geometry_type", 1),
        ("null_geometry", 2),
    ]


def test_a_ring_that_touches_itself_is_self_intersecting() -> None:
    assert shapely.is_valid_reason(PINCHED).startswith("Ring Self-intersection")
    assert only_code(raw(geometry=PINCHED)) == "self_intersecting_geometry"


def test_a_hole_outside_its_shell_is_an_invalid_geometry() -> None:
    shell = [(600_000, 300_000), (600_100, 300_000), (600_100, 300_100), (600_000, 300_100)]
    hole = [(600_200, 300_200), (600_300, 300_200), (600_300, 300_300), (600_200, 300_300)]
    assert only_code(raw(geometry=Polygon(shell, [hole]))) == "invalid_geometry"


def test_degrees_are_only_suspected_when_the_crs_is_british_national_grid() -> None:
    # Reprojected WGS 84 input that lands near the grid origin is not "degrees".
    near_origin = box(10, 10, 60, 60)
    assert validate_features([raw(geometry=near_origin, crs="EPSG:4326")], LIMITS)
    assert only_code(raw(geometry=near_origin)) == "coordinates_look_like_degrees"


def test_site_area_limit_is_in_hectares() -> None:
    square_km = box(600_000, 300_000, 601_000, 301_000)  # 1000 m x 1000 m = 100 ha
    assert validate_features([raw(geometry=square_km)], InputLimits(max_site_area_ha=100))
    assert (
        only_code(raw(geometry=square_km), InputLimits(max_site_area_ha=99.9)) == "site_too_large"
    )


def test_a_crossing_ring_is_measured_by_its_repaired_area() -> None:
    # The bow-tie's two triangles are 100 x 50 / 2 = 2,500 m² each: 0.5 ha in all, though
    # the shoelace formula gives 0 because they wind opposite ways.
    assert BOWTIE.area == 0
    with pytest.raises(InvalidInput) as caught:
        validate_features([raw(geometry=BOWTIE)], InputLimits(max_site_area_ha=0.49))
    assert caught.value.codes == ["self_intersecting_geometry", "site_too_large"]
    assert "site area is 0.5 ha" in caught.value.problems[1].message


def test_vertices_per_feature_and_in_total_are_limited() -> None:
    limits = InputLimits(max_vertices_per_feature=5, max_total_vertices=9)
    assert only_code(raw(geometry=SITE), InputLimits(max_vertices_per_feature=4)) == (
        "too_many_vertices"
    )
    # Each box has 5 coordinates (the first is repeated to close the ring): 10 > 9.
    assert problems_of(raw(1), raw(2), limits=limits) == [("too_many_vertices", None)]


def test_no_features_and_too_many_features_are_file_problems() -> None:
    assert problems_of() == [("empty_file", None)]
    assert problems_of(raw(1), raw(2), limits=InputLimits(max_features=1)) == [
        ("too_many_features", None)
    ]


def test_reader_problems_are_kept_and_stop_geometry_checks() -> None:
    from nrf.domain.errors import Problem

    found = Problem(
        code="invalid_geometry",
        message="feature 1: ring 1 is not closed",
        feature=1,
        field="geometry",
    )
    feature = RawFeature(index=1, properties=GOOD, geometry=None, problems=(found,))
    assert problems_of(feature) == [("invalid_geometry", 1)]


def test_multipolygons_are_accepted_and_z_is_dropped() -> None:
    site_z = shapely.force_3d(MultiPolygon([SITE, box(600_200, 300_000, 600_300, 300_100)]), 5.0)
    (development,) = validate_features([raw(geometry=site_z)], LIMITS)
    assert not development.boundary.has_z
    assert development.boundary.area == pytest.approx(20_000)


def test_one_geometry_can_be_checked_alone() -> None:
    assert geometry_problems(SITE, LIMITS) == []
    (crossing,) = geometry_problems(BOWTIE, LIMITS)
    assert crossing.code == "self_intersecting_geometry"
    assert crossing.message.startswith("geometry crosses itself")
    (problem,) = geometry_problems(None, LIMITS, feature=4)
    assert (problem.code, problem.feature, problem.field) == ("null_geometry", 4, "geometry")


# ---- properties: anything may arrive; only InvalidInput may come out -------------------------

COLUMN_NAMES = ["id", "name", "dwelling_category", "source", "dwellings"]
COLUMN_NAMES += ["Name", "Dwel_Cat", "Source", "Dwellings", "other"]
ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.decimals(allow_nan=False),
    st.lists(st.integers(), max_size=2),
)
COORDINATE = st.floats(allow_nan=True, allow_infinity=True, width=64)


def _any_polygon(points: list[tuple[float, float]]) -> Polygon:
    """A polygon from any points, NaN included (shapely refuses to close a ring with NaN)."""
    with np.errstate(all="ignore"):
        built = shapely.from_wkb(_wkb_polygon([*points, points[0]]), on_invalid="ignore")
    return built or Polygon()


ANY_GEOMETRY = st.one_of(
    st.none(),
    st.just(Polygon()),
    st.builds(Point, COORDINATE, COORDINATE),
    st.lists(st.tuples(COORDINATE, COORDINATE), min_size=1, max_size=8).map(_any_polygon),
    st.lists(st.tuples(st.floats(-1e6, 2e6), st.floats(-1e6, 2e6)), min_size=3, max_size=8).map(
        Polygon
    ),
    st.builds(box, st.floats(0, 7e5), st.floats(0, 1.3e6), st.floats(0, 7e5), st.floats(0, 1.3e6)),
    st.text(max_size=5),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.dictionaries(st.sampled_from(COLUMN_NAMES), ANY_VALUE), ANY_GEOMETRY),
        max_size=4,
    )
)
def test_random_features_raise_nothing_but_invalid_input(
    rows: list[tuple[dict[str, object], object]],
) -> None:
    features = [
        RawFeature(index=i, properties=props, geometry=geom)
        for i, (props, geom) in enumerate(rows, 1)
    ]
    try:
        developments = validate_features(features, LIMITS)
    except InvalidInput as error:
        assert error.problems
        assert all(p.feature is None or 1 <= p.feature <= len(rows) for p in error.problems)
    else:
        assert len(developments) == len(rows)


# Text as it comes out: no control or bidi characters (those are neutralised on the way in).
SHOWN = st.characters(
    blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
    blacklist_characters="\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
)
VALID_ROW = st.fixed_dictionaries(
    {
        "id": st.text(SHOWN, min_size=1, max_size=10).filter(lambda s: s.strip() == s != ""),
        "name": st.text(SHOWN, max_size=10).map(str.strip),
        "dwelling_category": st.sampled_from(["housing", "flats", "care home"]),
        "source": st.text(SHOWN, max_size=10).map(str.strip),
        "dwellings": st.integers(0, 999_999),
    }
)
VALID_BOX = st.builds(
    lambda x, y, w, h: box(x, y, x + w, y + h),
    st.floats(0, 690_000),
    st.floats(0, 1_290_000),
    st.floats(1, 5_000),
    st.floats(1, 5_000),
).filter(lambda b: b.bounds[0] > 180 or b.bounds[1] > 90)


@given(st.lists(st.tuples(VALID_ROW, VALID_BOX), min_size=1, max_size=5))
def test_valid_features_round_trip(rows: list[tuple[dict[str, object], Polygon]]) -> None:
    features = [
        RawFeature(index=i, properties=props, geometry=geom)
        for i, (props, geom) in enumerate(rows, 1)
    ]
    developments = validate_features(features, LIMITS)
    for position, (development, (props, geometry)) in enumerate(
        zip(developments, rows, strict=True), 1
    ):
        assert development.rlb_id == position
        assert development.id == props["id"]
        assert development.name == props["name"]
        assert development.dwelling_category == props["dwelling_category"]
        assert development.source == props["source"]
        assert development.dwellings == props["dwellings"]
        assert development.boundary.equals_exact(geometry, 0)


def test_column_names_in_another_case_are_accepted() -> None:
    from shapely.geometry import box as _box

    props = {"ID": "a-1", "NAME": "Upper", "DWEL_CAT": "housing", "source": "s", "DWELLINGS": 7}
    (dev,) = validate_features(
        [RawFeature(index=1, properties=props, geometry=_box(600000, 300000, 600100, 300100))]
    )
    assert (dev.id, dev.name, dev.dwelling_category, dev.dwellings) == (
        "a-1",
        "Upper",
        "housing",
        7,
    )
