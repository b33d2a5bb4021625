"""Catchment overlaps and the SVG map's geometry, worked by hand."""

from __future__ import annotations

from shapely.geometry import MultiPolygon, box

from nrf.adapters.outputs.svg_map import Frame, frame_for, nice_length
from nrf.domain.model import NnCatchment
from nrf.domain.overlaps import Overlap, catchment_and_edp_areas


def test_overlaps_are_summed_per_catchment_and_per_edp() -> None:
    # Wensum is drawn as two polygons; Broads is one; both are in EDP 1. Nothing else.
    catchments = [
        NnCatchment(geometry=box(0, 0, 100, 100), n2k_site_name="Wensum", edp_id="1"),
        NnCatchment(geometry=box(0, 100, 100, 200), n2k_site_name="Wensum", edp_id="1"),
        NnCatchment(geometry=box(100, 0, 200, 200), n2k_site_name="Broads", edp_id="1"),
        NnCatchment(geometry=box(500, 500, 600, 600), n2k_site_name="Far away", edp_id="2"),
    ]
    # Site 50..150 x 50..150 = 100 m x 100 m = 10,000 m² = 1 ha.
    # Wensum: 50..100 x 50..150 = 50 x 100 = 5,000 m² = 0.5 ha, 50 %; Broads the same.
    per_catchment, per_edp = catchment_and_edp_areas(box(50, 50, 150, 150), catchments)
    assert per_catchment == (
        Overlap(name="Broads", edp_id="1", area_ha=0.5, share_percent=50.0),
        Overlap(name="Wensum", edp_id="1", area_ha=0.5, share_percent=50.0),
    )
    assert per_edp == (Overlap(name="1", edp_id="1", area_ha=1.0, share_percent=100.0),)


def test_a_site_touching_only_an_edge_has_no_overlap() -> None:
    catchments = [NnCatchment(geometry=box(0, 0, 100, 100), n2k_site_name="Wensum", edp_id="1")]
    assert catchment_and_edp_areas(box(100, 0, 200, 100), catchments) == ((), ())


def test_shares_are_of_the_whole_site_not_of_the_part_in_catchments() -> None:
    # 3 ha site, 1 ha of it in the catchment: 33.33 %.
    catchments = [NnCatchment(geometry=box(0, 0, 100, 100), n2k_site_name="Wensum", edp_id="1")]
    site = MultiPolygon([box(0, 0, 100, 100), box(1000, 0, 1200, 100)])
    [overlap], _ = catchment_and_edp_areas(site, catchments)
    assert (overlap.area_ha, overlap.share_percent) == (1.0, 33.33)


def test_nice_lengths_are_round_and_at_most_a_quarter_of_the_frame() -> None:
    assert nice_length(330) == 50  # a quarter is 82.5 m
    assert nice_length(2000) == 500
    assert nice_length(4100) == 1000
    assert nice_length(90) == 20  # a quarter is 22.5 m


def test_the_frame_maps_metres_to_pixels_with_north_up() -> None:
    frame = Frame((0, 0, 100, 100), width=640)  # 6.4 px per metre
    # Square 10..20: x 64..128 px; y flips, so y 20 m is (100 - 20) x 6.4 = 512 px.
    path = frame.path(box(10, 10, 20, 20))
    points = {tuple(map(float, p.split(","))) for p in path.strip("MZ").split()}
    assert points == {(128.0, 576.0), (128.0, 512.0), (64.0, 512.0), (64.0, 576.0)}
    # Clipped to the frame: a polygon reaching far outside ends at the frame's edge.
    clipped = frame.path(box(50, 50, 5000, 5000))
    xs = {float(p.split(",")[0]) for p in clipped.strip("MZ").split()}
    assert max(xs) == 640.0


def test_a_site_frame_has_at_least_125_m_of_margin() -> None:
    # A 10 m site: pad = max(6, 6, 125) = 125 m, so the frame is 260 m square.
    frame = frame_for(box(1000, 1000, 1010, 1010))
    assert frame.span == 260 and frame.box == (875, 875, 1135, 1135)


def test_report_figures_never_show_minus_zero() -> None:
    from nrf.adapters.outputs.html_tables import kg

    assert (kg(-0.001), kg(-0.004), kg(1234.567), kg(None)) == ("0.00", "0.00", "1,234.57", "–")
