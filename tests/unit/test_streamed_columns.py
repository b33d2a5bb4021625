"""The whole-file column checks from each distinct list of names: the same as from every feature."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, box

from nrf.domain.column_mapping import mapped_columns, renamed, renamed_feature, renamed_keys
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import RawFeature, file_columns, key_sets, validate_features


def feature(index: int, properties: dict[str, object], geometry: object = None) -> RawFeature:
    return RawFeature(index=index, properties=properties, geometry=geometry)


FEATURES = [
    feature(1, {"Ref": "A", "Units": 3, "name": "one"}),
    feature(2, {"Ref": "B", "Units": 4, "name": "two"}),
    feature(3, {"Units": 5, "id": "C", "extra": 1}),
]


def test_a_file_has_as_many_key_sets_as_distinct_lists_of_names() -> None:
    # features 1 and 2 share (Ref, Units, name); feature 3 has its own
    assert key_sets(FEATURES) == [("Ref", "Units", "name"), ("Units", "id", "extra")]


def test_absent_columns_and_names_come_from_the_key_sets() -> None:
    columns = file_columns(key_sets(FEATURES))
    # "id" is in feature 3, "name" in 1 and 2; no feature has dwellings, dwelling_category
    # or source under any of their names ("Units" is none of them)
    assert columns.absent == ("dwelling_category", "source", "dwellings")
    assert columns.names == ("Ref", "Units", "name", "id", "extra")


def test_renamed_keys_are_the_keys_of_the_renamed_feature() -> None:
    found = mapped_columns(
        file_columns(key_sets(FEATURES)).names, {"id": "ref", "dwellings": "UNITS"}
    )
    # matched in any case: ref -> Ref, UNITS -> Units
    assert found == {"Ref": "id", "Units": "dwellings"}
    for f in FEATURES:
        assert renamed_keys(tuple(f.properties), found) == tuple(
            renamed_feature(f, found).properties
        )
    # feature 3 had its own "id" (C): the mapped column wins, and it has no Ref, so no id;
    # the file's own "Units" stays beside its copy under nrf's name
    third = renamed_feature(FEATURES[2], found).properties
    assert dict(third) == {"Units": 5, "extra": 1, "dwellings": 5}
    assert [dict(f.properties) for f in renamed(FEATURES, {"id": "ref", "dwellings": "UNITS"})] == [
        dict(renamed_feature(f, found).properties) for f in FEATURES
    ]


def test_a_mapped_column_the_file_lacks_is_refused_with_its_columns() -> None:
    with pytest.raises(InvalidInput) as raised:
        mapped_columns(("Ref", "Units"), {"id": "Site_Ref"})
    assert raised.value.problems[0].code == "missing_column"
    assert "'Ref', 'Units'" in raised.value.problems[0].message


def test_no_polygon_comes_right_after_the_missing_columns() -> None:
    """Two lines and no dwellings column: dwellings missing first, then no polygon, then each
    feature's own geometry problem."""
    lines = [feature(n, {"id": f"S{n}"}, LineString([(0, 0), (1, 1)])) for n in (1, 2)]
    with pytest.raises(InvalidInput) as raised:
        validate_features(lines)
    codes = [p.code for p in raised.value.problems]
    assert codes[:2] == ["missing_column", "no_polygon_found"]
    assert len(codes) == 4 and all(p.feature in (1, 2) for p in raised.value.problems[2:])


def test_a_file_with_a_polygon_has_no_no_polygon_problem() -> None:
    features = [feature(1, {"id": "S1", "dwellings": 1}, box(0, 0, 10, 10))]
    features.append(feature(2, {"id": "S2", "dwellings": 1}, LineString([(0, 0), (1, 1)])))
    with pytest.raises(InvalidInput) as raised:
        validate_features(features)
    assert "no_polygon_found" not in [p.code for p in raised.value.problems]
