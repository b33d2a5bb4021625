"""Catchments are listed by their own Label with the lowest OID, not by N2K site (issue 27)."""

from __future__ import annotations

from shapely.geometry import box

from nrf.domain.catchment_ids import lowest_ids
from nrf.domain.edp_catchments import catchments_by_edp
from nrf.domain.edp_geography import catchment_overlaps
from nrf.domain.model import EdpPolygon, NnCatchment
from nrf.domain.results import CatchmentOverlap

BROADS = "The Broads SAC"


def four_broads() -> list[NnCatchment]:
    """Four 100 m x 100 m catchments of one N2K site, side by side along x 0..400; the Bure is
    drawn as two polygons (OIDs 12 and 9), so its id is the lower, 9 (as a number, not text)."""
    return [
        NnCatchment(geometry=box(0, 0, 100, 100), n2k_site_name=BROADS, edp_id="12", label="Bure"),
        NnCatchment(geometry=box(0, 100, 100, 200), n2k_site_name=BROADS, edp_id="9", label="Bure"),
        NnCatchment(geometry=box(100, 0, 200, 200), n2k_site_name=BROADS, edp_id="31", label="Ant"),
        NnCatchment(
            geometry=box(200, 0, 300, 200), n2k_site_name=BROADS, edp_id="40", label="Thurne"
        ),
        NnCatchment(geometry=box(300, 0, 400, 200), n2k_site_name=BROADS, edp_id="7", label="Yare"),
    ]


def test_four_catchments_of_one_n2k_site_are_four_entries_with_their_ids() -> None:
    # The site x 50..350, y 50..150: 300 m x 100 m = 30,000 m².
    # Bure: x 50..100, y 50..150 (two polygons, 2,500 + 2,500) = 5,000 m² -> 16.67 %.
    # Ant and Thurne: 100 m x 100 m each = 10,000 m² -> 33.33 %. Yare: x 300..350 = 5,000 m².
    site = box(50, 50, 350, 150)
    assert catchment_overlaps(site, four_broads()) == (
        CatchmentOverlap(label="Ant", catchment_id="31", overlap_percentage=33.33),
        CatchmentOverlap(label="Bure", catchment_id="9", overlap_percentage=16.67),
        CatchmentOverlap(label="Thurne", catchment_id="40", overlap_percentage=33.33),
        CatchmentOverlap(label="Yare", catchment_id="7", overlap_percentage=16.67),
    )


def test_under_an_edp_the_four_are_listed_apart_too() -> None:
    # The EDP covers x 0..250 only: of the site, the Bure's 5,000 m², the Ant's 10,000 m² and
    # the Thurne's x 200..250 (5,000 m²) lie in it: 16.67 %, 33.33 %, 16.67 % of 30,000 m².
    edps = [EdpPolygon(box(0, 0, 250, 200), 1, "Norfolk EDP")]
    inside = catchments_by_edp(box(50, 50, 350, 150), [1], edps, four_broads())
    assert inside[1] == (
        CatchmentOverlap(label="Ant", catchment_id="31", overlap_percentage=33.33),
        CatchmentOverlap(label="Bure", catchment_id="9", overlap_percentage=16.67),
        CatchmentOverlap(label="Thurne", catchment_id="40", overlap_percentage=16.67),
    )


def test_a_bundle_without_labels_lists_each_n2k_site_once_with_its_lowest_oid() -> None:
    # An older bundle: no label, so the four are one "The Broads SAC" (100 % of the site),
    # with the lowest OID of all five polygons, 7.
    unlabelled = [
        NnCatchment(geometry=c.geometry, n2k_site_name=c.n2k_site_name, edp_id=c.edp_id)
        for c in four_broads()
    ]
    assert catchment_overlaps(box(50, 50, 350, 150), unlabelled) == (
        CatchmentOverlap(label=BROADS, catchment_id="7", overlap_percentage=100.0),
    )


def test_the_lowest_id_is_numeric_for_whole_numbers_and_textual_otherwise() -> None:
    def nn(oid: str, label: str) -> NnCatchment:
        return NnCatchment(geometry=box(0, 0, 1, 1), n2k_site_name="S", edp_id=oid, label=label)

    # 9 < 10 as numbers (as text "10" < "9"); a non-number sorts after the numbers.
    found = lowest_ids([nn("10", "A"), nn("9", "A"), nn("NN-2", "B"), nn("NN-10", "B")])
    assert found == {"A": "9", "B": "NN-10"}
    assert lowest_ids([nn("NN-1", "C"), nn("3", "C")]) == {"C": "3"}
