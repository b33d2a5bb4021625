"""Each outline is tested and cut once per site, and sharing it between layers moves no figure.

Layout (metres): catchment A 0-1000 east, catchment B 1000-2000 east, both 0-1000 north; the
EDP is drawn on the same two outlines (the very objects, as the repository hands them over).
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from nrf.domain.edp_geography import catchment_overlaps, edp_overlaps
from nrf.domain.land_use import piece_areas
from nrf.domain.model import EdpPolygon, NnCatchment
from nrf.domain.results import CatchmentOverlap, EdpOverlap
from nrf.domain.site_outlines import CLIP_FROM_VERTICES, SiteOutlines

A, B = box(0, 0, 1000, 1000), box(1000, 0, 2000, 1000)


class RecordingSiteOutlines(SiteOutlines):
    """Records every outline it is asked to cut, so a test can see what was cut."""

    def __init__(self, boundary: shapely.Geometry) -> None:
        super().__init__(boundary)
        self.cut: list[shapely.Geometry] = []

    def part_inside(self, outline: shapely.Geometry) -> shapely.Geometry:
        self.cut.append(outline)
        return super().part_inside(outline)


def test_a_shared_outline_is_cut_once_for_the_edp_and_the_catchment_shares() -> None:
    # Site 900-1300 east by 100-200 north: 400 x 100 = 40,000 m2; 100 x 100 = 10,000 m2
    # (25 %) in A and 300 x 100 = 30,000 m2 (75 %) in B; the EDP (A and B dissolved) holds
    # all 40,000 m2 (100 %).
    site = RecordingSiteOutlines(box(900, 100, 1300, 200))
    edps = [EdpPolygon(A, 1, "Norfolk EDP"), EdpPolygon(B, 1, "Norfolk EDP")]
    catchments = [
        NnCatchment(geometry=A, n2k_site_name="A SAC", edp_id="11"),
        NnCatchment(geometry=B, n2k_site_name="B SAC", edp_id="12"),
    ]
    assert edp_overlaps(site.boundary, edps, site) == (
        EdpOverlap(edp_id=1, edp_name="Norfolk EDP", overlap_m2=40_000.0, overlap_percentage=100.0),
    )
    assert catchment_overlaps(site.boundary, catchments, site) == (
        CatchmentOverlap(label="A SAC", catchment_id="11", overlap_percentage=25.0),
        CatchmentOverlap(label="B SAC", catchment_id="12", overlap_percentage=75.0),
    )
    assert [id(g) for g in site.cut] == [id(A), id(B), id(A), id(B)]  # asked for twice each
    assert site.part_inside(A) is site.part_inside(A)  # but cut once: the same piece back
    # the same figures as with separate objects and no shared answers
    alone = [
        EdpPolygon(box(0, 0, 1000, 1000), 1, "E"),
        EdpPolygon(box(1000, 0, 2000, 1000), 1, "E"),
    ]
    assert edp_overlaps(site.boundary, alone)[0].overlap_m2 == 40_000.0


def test_a_key_whose_later_polygon_holds_the_site_cuts_nothing() -> None:
    # EDP 1 drawn as A, then as a large square holding the whole site; the site 900-1100 by
    # 100-200 straddles A's east edge, but lies wholly inside the second polygon: 200 x 100
    # = 20,000 m2, 100 %, and no outline needs cutting.
    site = RecordingSiteOutlines(box(900, 100, 1100, 200))
    edps = [EdpPolygon(A, 1, "Norfolk EDP"), EdpPolygon(box(-5000, -5000, 5000, 5000), 1, "N")]
    [overlap] = edp_overlaps(site.boundary, edps, site)
    assert (overlap.overlap_m2, overlap.overlap_percentage) == (20_000.0, 100.0)
    assert site.cut == []


def test_meets_answers_each_outline_as_the_plain_predicate_does() -> None:
    # The site 900-1100 meets A and B, not C (3000-4000 east); A is asked twice in one call.
    c = box(3000, 0, 4000, 1000)
    site = SiteOutlines(box(900, 100, 1100, 200))
    got = site.meets(np.array([A, c, B, A], dtype=object))
    assert got.tolist() == [True, False, True, True]
    assert site.wholly_inside(A) is False and site.wholly_inside(c) is False


def test_a_catchment_holding_the_whole_site_is_not_tested_part_by_part() -> None:
    # Parts of a site wholly inside A: a 10 x 20 rectangle (200 m2), a 30 x 5 one (150 m2)
    # and an empty part (a parcel met at a point only): 0 m2. With A marked as holding the
    # site the areas are the same as when each part is tested against A.
    parts = np.array([box(100, 300, 110, 320), box(500, 500, 530, 505), Polygon()], dtype=object)
    catchments = np.array([A], dtype=object)
    held = piece_areas(parts, catchments, np.array([True]))
    tested = piece_areas(parts, catchments)
    assert held[:, 0].tolist() == [200.0, 150.0, 0.0]
    assert held.tolist() == tested.tolist()


def test_pieces_of_one_key_that_overlap_are_unioned_and_pieces_that_touch_are_summed() -> None:
    # The site 900-1300 by 100-200 (40,000 m2) against EDP 1 drawn three times: A (0-1000),
    # B (1000-2000) and C (1200-1500, overlapping B). Pieces: 100 x 100 = 10,000 in A,
    # 300 x 100 = 30,000 in B, 100 x 100 = 10,000 in C, all inside B's piece. The union is
    # 40,000 m2 (100 %), not the 50,000 a sum would give.
    c = box(1200, 0, 1500, 1000)
    edps = [EdpPolygon(g, 1, "Norfolk EDP") for g in (A, B, c)]
    [overlap] = edp_overlaps(box(900, 100, 1300, 200), edps)
    assert (overlap.overlap_m2, overlap.overlap_percentage) == (40_000.0, 100.0)


def test_a_part_crossing_a_catchment_edge_is_overlaid_with_the_catchments_part_in_the_site() -> (
    None
):
    # A drawn in detail (a vertex every 2 m: 2,000 vertices). Site 900-1100 by 100-200; two
    # parcels' parts: 900-1000 (100 x 100 = 10,000 m2, inside A up to its edge, so it
    # touches A's boundary and is overlaid) and 1000-1100 (outside A, touching it along
    # x = 1000: no area). A's part inside the site, 900-1000 by 100-200, is cut once and
    # asked for once, for the one column that needs it.
    detailed = shapely.segmentize(A, 2.0)
    assert shapely.get_num_coordinates(detailed) >= CLIP_FROM_VERTICES
    site = RecordingSiteOutlines(box(900, 100, 1100, 200))
    parts = np.array([box(900, 100, 1000, 200), box(1000, 100, 1100, 200)], dtype=object)
    column = np.array([detailed], dtype=object)
    areas = piece_areas(parts, column, np.array([False]), site.part_inside)
    assert areas[:, 0].tolist() == [10_000.0, 0.0]
    assert [id(g) for g in site.cut] == [id(detailed)]
    # A part inside the site that is not polygonal (met along a line) leaves the catchment
    # itself as the operand, and so does an outline of few vertices: the same 10,000 m2.
    line = shapely.LineString([(900, 100), (1000, 100)])
    assert piece_areas(parts, column, None, lambda _: line)[:, 0].tolist() == [10_000.0, 0.0]
    plain = RecordingSiteOutlines(site.boundary)
    few = piece_areas(parts, np.array([A], dtype=object), None, plain.part_inside)
    assert few[:, 0].tolist() == [10_000.0, 0.0] and plain.cut == []
