"""The synthetic Norfolk design: catchments, zones, EDP and tables around the real sample sites."""

# Long: one design (catchments, zones, tables) laid out around the same sample sites.

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import MultiPoint, MultiPolygon, Point, Polygon, box

from nrf.bundles.geopackage_writer import Layer, Table
from nrf.domain.levy_rounding import FOR_NEW_BUNDLES, SETTING
from nrf.domain.model import Boundary

# Bounding box of the Broads & Wensum sample sites plus 3 km, rounded out to 100 m.
NORFOLK_EXTENT = (579_800.0, 276_600.0, 645_300.0, 346_900.0)

WENSUM = "River Wensum SAC"
BROADS = "The Broads SAC"
# Each catchment's own `Label` and OID (made up): the two Broads catchments share one N2K site
# under two labels and OIDs (2 and 3), so the boundary check and the PATCH list them apart with
# their ids, as Defra's do (the Wensum is one catchment, labelled as its site). The IAT CSV and
# the nutrient split group by N2K site (its id the lowest OID, 2, as before), so no figure moves.
NN_LABELS = (WENSUM, "Bure, Ant and Thurne (made up)", "Yare (made up)")
# Defra's Norfolk EDP as its boundary layer names it (EDP_Id 1), and its charging schedule
# and RICS CIL index rows as Defra loads them; only the 2027 index row is made up.
NORFOLK_EDP_ID = 1
NORFOLK_EDP = (
    "Broads SAC, Broadland Ramsar and River Wensum SAC Environmental Delivery Plan "
    "addressing nutrient pollution (2026 to 2036)"
)
# A made-up excluded area (a buffered SSSI stands in) over three of the sample sites.
EXCLUDED_AREA = "Synthetic SSSI buffer (made up)"
_EXCLUDED_CENTRE, _EXCLUDED_RADIUS = (627_270.0, 320_390.0), 600.0

# Shared boundary vertices are spelt once so neighbouring catchments meet exactly.
_W_B = [
    (608_000, 309_000),
    (618_000, 306_000),
    (624_000, 309_500),
    (622_500, 316_000),
    (616_000, 328_000),
    (606_000, 338_000),
]
_WENSUM = Polygon(
    [(592_000, 313_500), *_W_B, (590_000, 342_000), (578_000, 338_000), (578_000, 318_000)]
)
_BROADS_NORTH = Polygon(
    [
        *_W_B[2:],
        (612_000, 348_000),
        (640_000, 349_000),
        (650_000, 330_000),
        (650_000, 300_000),
        (630_000, 300_000),
        (618_000, 306_000),
    ]
)
_BROADS_SOUTH = Polygon(
    [
        (618_000, 306_000),
        (630_000, 300_000),
        (650_000, 300_000),
        (650_000, 282_000),
        (625_000, 282_000),
        (614_000, 290_000),
        (609_000, 298_000),
    ]
)


def _in_extent(catchment: Polygon) -> Polygon:
    """The part of a catchment inside NORFOLK_EXTENT, which every layer of the design keeps to.

    The design's parcels tile exactly that box, so a catchment reaching past it would have
    land no parcel covers (the gate's ``coverage_gap``). No sample site lies within 3 km of
    the box's edge, so cutting there moves no site's figures.
    """
    part = shapely.intersection(catchment, box(*NORFOLK_EXTENT))
    assert isinstance(part, Polygon), "a catchment the box cuts in two"
    return part


_WENSUM, _BROADS_NORTH, _BROADS_SOUTH = (
    _in_extent(c) for c in (_WENSUM, _BROADS_NORTH, _BROADS_SOUTH)
)

# (id, name, seed point); 4521 has two seeds and so two separate polygons; 2690 has no permit.
_WORKS = [
    (1065, "Sculthorpe", (591_000, 331_000)),
    (1128, "Ludham", (638_500, 320_000)),
    (4521, "Whitlingham", (625_000, 308_000)),
    (4521, "Whitlingham", (633_500, 314_000)),
    (1187, "Dereham", (599_500, 313_000)),
    (2210, "Wymondham", (610_500, 301_500)),
    (2287, "Aylsham", (619_000, 327_000)),
    (2356, "North Walsham", (629_000, 333_000)),
    (2403, "Acle", (642_000, 307_000)),
    (2519, "Long Stratton", (621_500, 293_000)),
    (2690, "Attleborough", (603_000, 297_000)),
    (2774, "Reepham", (609_000, 323_000)),
    (2811, "Loddon", (636_000, 297_500)),
]
# Areas served by no works, so sites there fall back to the package-plant default (141).
_NO_WORKS = [
    ((583_000, 328_000), 3_000),
    ((616_500, 290_500), 2_000),
    ((597_000, 344_000), 7_000),
    ((613_000, 280_000), 3_000),
    ((595_500, 307_500), 2_200),
    ((628_500, 319_500), 1_500),
    ((608_000, 307_000), 1_600),
]
_LPAS = [
    ("King's Lynn and West Norfolk", (582_000, 305_000)),
    ("North Norfolk", (612_000, 338_000)),
    ("Breckland", (598_000, 300_000)),
    ("Broadland", (620_000, 322_000)),
    ("South Norfolk", (620_000, 290_000)),
    ("Broads Authority", (641_000, 316_000)),
]
_SUBCATCHMENTS = [
    ("Nar", (584_000, 312_000)),
    ("Wensum", (601_000, 326_000)),
    ("Bure and Ant", (625_000, 333_000)),
    ("Thurne", (641_000, 330_000)),
    ("Yare", (626_000, 304_000)),
    ("Tas", (614_000, 288_000)),
]


def _extent_box() -> Polygon:
    return box(*NORFOLK_EXTENT)


def blob(centre: tuple[float, float], radius: float, seed: int) -> Polygon:
    """A rounded, slightly irregular polygon (a catchment-ish island)."""
    rng = np.random.default_rng(seed)
    angle = np.linspace(0.0, 2 * np.pi, 32, endpoint=False)
    r = radius * (1 + 0.12 * np.sin(3 * angle + rng.uniform(0, 6)) + 0.06 * rng.uniform(-1, 1, 32))
    return Polygon(np.column_stack([centre[0] + r * np.cos(angle), centre[1] + r * np.sin(angle)]))


def _cells(seeds: list[tuple[float, float]]) -> list[Boundary]:
    """Voronoi cells of ``seeds`` clipped to the extent, in seed order."""
    area = _extent_box()
    cells = shapely.voronoi_polygons(MultiPoint(seeds), extend_to=area).geoms
    out: list[Boundary] = []
    for s in seeds:
        cell = next(c for c in cells if c.contains(Point(s)))
        out.append(shapely.intersection(cell, area))
    return out


def _clean(geom: Boundary) -> MultiPolygon:
    """Centimetre precision, valid, and always a MultiPolygon (the layers declare that)."""
    fixed = shapely.make_valid(shapely.set_precision(geom, 0.01))
    parts = [g for g in getattr(fixed, "geoms", [fixed]) if isinstance(g, Polygon) and g.area > 0]
    parts += [
        p for g in getattr(fixed, "geoms", []) if isinstance(g, MultiPolygon) for p in g.geoms
    ]
    return MultiPolygon(parts)


def nn_layer() -> Layer:
    return Layer(
        name="nn_catchments",
        columns=[("n2k_site_name", "TEXT"), ("edp_id", "INTEGER"), ("label", "TEXT")],
        geometries=[_WENSUM, _BROADS_NORTH, _BROADS_SOUTH],
        attributes={
            "n2k_site_name": [WENSUM, BROADS, BROADS],
            "edp_id": [1, 2, 3],
            "label": list(NN_LABELS),
        },
    )


def wwtw_layer() -> Layer:
    gaps = shapely.union_all([blob(c, r, 100 + i) for i, (c, r) in enumerate(_NO_WORKS)])
    cells = _cells([seed for _, _, seed in _WORKS])
    geoms: list[Boundary] = []
    first: dict[int, Boundary] = {}
    for (wid, _, _), cell in zip(_WORKS, cells, strict=True):
        geom = shapely.difference(cell, gaps)
        if wid in first:
            # A second part of the same works is kept clear of the first: a separate polygon.
            geom = shapely.difference(geom, shapely.buffer(first[wid], 400))
        first.setdefault(wid, geom)
        geoms.append(_clean(geom))
    return Layer(
        name="wwtw_catchments",
        columns=[("wwtw_id", "INTEGER")],
        geometries=geoms,
        attributes={"wwtw_id": [wid for wid, _, _ in _WORKS]},
        geometry_type="MULTIPOLYGON",
    )


def lpa_layer() -> Layer:
    norwich = blob((623_500, 308_500), 3_800, 7)
    cells = [_clean(shapely.difference(c, norwich)) for c in _cells([s for _, s in _LPAS])]
    return Layer(
        name="lpa_boundaries",
        columns=[("name", "TEXT")],
        geometries=[*cells, MultiPolygon([norwich])],
        attributes={"name": [n for n, _ in _LPAS] + ["Norwich"]},
        geometry_type="MULTIPOLYGON",
    )


def subcatchment_layer() -> Layer:
    gap = blob((612_500, 280_500), 3_000, 11)  # an area no operational catchment covers
    cells = [_clean(shapely.difference(c, gap)) for c in _cells([s for _, s in _SUBCATCHMENTS])]
    return Layer(
        name="subcatchments",
        columns=[("opcat_name", "TEXT")],
        geometries=cells,
        attributes={"opcat_name": [n for n, _ in _SUBCATCHMENTS]},
        geometry_type="MULTIPOLYGON",
    )


_CONC = [
    ("n_conc_2025_2030", "REAL"),
    ("n_conc_2030_on", "REAL"),
    ("p_conc_2025_2030", "REAL"),
    ("p_conc_2030_on", "REAL"),
]


def permits_table() -> Table:
    """One row per works except 2690, plus 141 and the dirt real lookups carry."""
    rows = [
        ("1065", "Sculthorpe ", "Wensum", 27.0, 10.0, 1.0, 1.0),
        ("1128", "Ludham", "Thurne", None, 10.0, 0.25, 0.25),
        ("4521", "Whitlingham", "Yare", 27.0, 10.0, 1.0, 0.25),
        ("\t1187", "Dereham", "Wensum", 27.0, 27.0, 5.0, 5.0),
        ("2210", "Wymondham", "Yare", None, 27.0, 8.0, 8.0),
        ("2287", "Aylsham", "Bure and Ant", 27.0, 10.0, None, None),
        ("2356", "North Walsham", "Bure and Ant", None, 10.0, 1.0, 1.0),
        ("2403", "Acle", "Bure and Ant", 27.0, 27.0, 8.0, 5.0),
        ("2519.0", "Long Stratton", "Tas", None, 10.0, 5.0, 1.0),
        ("2774", "Reepham", "Wensum", 27.0, 10.0, 0.25, 0.25),
        ("2811", "Loddon", "Yare", None, 27.0, 1.0, 1.0),
        ("141", "Package Treatment Plant default", None, 25.0, 25.0, 4.5, 4.5),
        (None, "Package Treatment Plant default", None, 25.0, 25.0, 4.5, 4.5),
        # A works code repeated with the same figures, as real exports repeat rows: the
        # reader keeps the first. (A repeat that disagrees is refused by the gate.)
        ("1065", "Sculthorpe (duplicate, ignored)", "Wensum", 27.0, 10.0, 1.0, 1.0),
    ]
    cols = [("wwtw_id", "TEXT"), ("wwtw_name", "TEXT"), ("wwtw_subcatchment", "TEXT"), *_CONC]
    return Table("wwtw_permits", cols, rows)


def occupancy_table() -> Table:
    cols = [
        ("nn_catchment", "TEXT"),
        ("dwelling_category", "TEXT"),
        ("occupancy_rate", "REAL"),
        ("water_usage_l_per_person_day", "REAL"),
    ]
    rows = [
        (WENSUM, None, 2.4, 120.0),
        (BROADS, None, 2.4, 110.0),
        (None, "Hotel", 1.0, 240.0),
        (None, "Student Accommodation", 1.0, 120.0),
        ("default", None, 2.4, 120.0),
    ]
    return Table("occupancy_rates", cols, rows)


def edp_layer() -> Layer:
    """One EDP over both NN catchments, drawn as their three polygons under one id and name."""
    return Layer(
        name="edp_boundaries",
        columns=[("edp_id", "INTEGER"), ("edp_name", "TEXT")],
        geometries=[_WENSUM, _BROADS_NORTH, _BROADS_SOUTH],
        attributes={"edp_id": [NORFOLK_EDP_ID] * 3, "edp_name": [NORFOLK_EDP] * 3},
    )


def excluded_layer() -> Layer:
    return Layer(
        name="excluded_areas",
        columns=[("name", "TEXT")],
        geometries=[_clean(blob(_EXCLUDED_CENTRE, _EXCLUDED_RADIUS, 13))],
        attributes={"name": [EXCLUDED_AREA]},
        geometry_type="MULTIPOLYGON",
    )


def levy_charges_table() -> Table:
    cols = [
        ("edp_id", "INTEGER"),
        ("edp_name", "TEXT"),
        ("edp_start_date", "TEXT"),
        ("charge_valid_from", "TEXT"),
        ("charge_valid_to", "TEXT"),
        ("base_charge_per_unit", "TEXT"),
    ]
    rows = [(NORFOLK_EDP_ID, NORFOLK_EDP, "2026-01-01", "2026-01-01", "2027-12-31", "2675.0000")]
    return Table("levy_charges", cols, rows)


def inflation_index_table() -> Table:
    cols = [("charging_year", "INTEGER"), ("cil_index", "TEXT"), ("index_factor", "TEXT")]
    rows = [
        (2021, "333", "0.8325"),
        (2022, "332", "0.8300"),
        (2023, "355", "0.8875"),
        (2024, "381", "0.9525"),
        (2025, "391", "0.9775"),
        (2026, "400", "1.0000"),
        (2027, "412", "1.0300"),  # made up, so the demo can show an indexed year
    ]
    return Table("levy_inflation_index", cols, rows)


def levy_settings_table() -> Table:
    """VAT 0.20 and the rounding rule of every new bundle (Defra's newest: the total once)."""
    rows = [("vat_rate", "0.20"), (SETTING, FOR_NEW_BUNDLES.value)]
    return Table("levy_settings", [("key", "TEXT"), ("value", "TEXT")], rows)


def small_layers() -> list[Layer]:
    return [
        nn_layer(),
        wwtw_layer(),
        lpa_layer(),
        subcatchment_layer(),
        edp_layer(),
        excluded_layer(),
    ]


def levy_tables() -> list[Table]:
    """The levy's tables: the charging schedule, the CIL index and the VAT rate."""
    return [levy_charges_table(), inflation_index_table(), levy_settings_table()]


def tables() -> list[Table]:
    return [permits_table(), occupancy_table(), *levy_tables()]
