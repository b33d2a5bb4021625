"""Defra's geometry rules give Defra's code, the first rule broken, in Defra's order."""

from __future__ import annotations

from shapely.geometry import MultiPolygon, Point, Polygon, box

from nrf.domain.defra_geometry import coordinates_out_of_range, defra_geometry_error
from nrf.service_layer.defra_boundary_check import UNNAMED_EXCLUDED_AREA, excluded_names

SQUARE = box(0, 0, 10, 10)


def test_each_rule_has_its_code() -> None:
    assert defra_geometry_error([SQUARE]) is None
    assert defra_geometry_error([None]) == "invalid_geometry"
    assert defra_geometry_error([Polygon()]) == "invalid_geometry"
    assert defra_geometry_error([MultiPolygon([SQUARE])]) == "unsupported_geometry_type"
    assert defra_geometry_error([Point(1, 1)]) == "unsupported_geometry_type"
    bowtie = Polygon([(0, 0), (10, 10), (10, 0), (0, 10), (0, 0)])
    assert defra_geometry_error([bowtie]) == "self_intersecting_geometry"
    holed = Polygon(SQUARE.exterior.coords, [box(2, 2, 4, 4).exterior.coords])
    assert defra_geometry_error([holed]) == "geometry_has_holes"
    repeated = Polygon([(0, 0), (10, 0), (10, 0), (10, 10), (0, 10), (0, 0)])
    assert defra_geometry_error([repeated]) == "duplicate_vertices"


def test_the_first_rule_broken_is_the_answer_across_features() -> None:
    # A MultiPolygon beside a holed polygon: the type rule comes before the holes rule.
    holed = Polygon(SQUARE.exterior.coords, [box(2, 2, 4, 4).exterior.coords])
    assert defra_geometry_error([holed, MultiPolygon([SQUARE])]) == "unsupported_geometry_type"


def test_coordinates_outside_defras_national_grid_range() -> None:
    assert not coordinates_out_of_range([box(0, 0, 700_000, 700_000)])
    assert coordinates_out_of_range([box(0, 0, 700_001, 10)])
    assert coordinates_out_of_range([box(-1, 0, 10, 10)])


def test_excluded_names_are_stripped_once_each_and_a_blank_one_is_unnamed() -> None:
    names = ("", " Fen SSSI ", "   ", "Fen SSSI", "Alder Carr")
    assert excluded_names(names) == ("Alder Carr", "Fen SSSI", UNNAMED_EXCLUDED_AREA)
