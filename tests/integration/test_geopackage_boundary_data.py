"""GeoPackageBoundaryData against real GeoPackage files: reads, cleaning, and refusals."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from shapely.geometry import LineString, Polygon, box

from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.bundles.geopackage_writer import Layer, Table
from nrf.domain.errors import BrokenBundle
from nrf.domain.model import OccupancyRate
from support.geopackages import write_geopackage

COEFFS = ["lu_curr_n_coeff", "lu_curr_p_coeff", "n_resi_coeff", "p_resi_coeff"]


def _coefficient_layer() -> Layer:
    """20 x 10 squares of 100 m over (0, 0)-(2000, 1000); fid = 20 * row + col + 1."""
    squares = [
        box(c * 100, r * 100, c * 100 + 100, r * 100 + 100) for r in range(10) for c in range(20)
    ]
    fids = range(1, len(squares) + 1)
    n: list[object] = [float(f) for f in fids]
    n[21] = "n/a"  # fid 22: stray text counts as NULL
    p: list[object] = [f / 100 for f in fids]
    p[42] = None  # fid 43
    return Layer(
        name="land_use_coefficients",
        columns=[(c, "REAL") for c in COEFFS],
        geometries=squares,
        attributes={
            "lu_curr_n_coeff": n,
            "lu_curr_p_coeff": p,
            "n_resi_coeff": [10.0] * 200,
            "p_resi_coeff": [1.0] * 200,
        },
    )


def tiny_layers() -> dict[str, Layer]:
    return {
        "nn": Layer(
            name="nn_catchments",
            columns=[("n2k_site_name", "TEXT"), ("edp_id", "TEXT")],
            geometries=[box(0, 0, 1000, 1000), box(1000, 0, 2000, 1000)],
            attributes={"n2k_site_name": ["Alpha SAC ", "Beta SAC"], "edp_id": [2.0, 3]},
        ),
        "wwtw": Layer(
            name="wwtw_catchments",
            columns=[("wwtw_id", "INTEGER")],
            geometries=[box(0, 0, 1000, 500), box(0, 500, 1000, 1000), box(1000, 0, 2000, 1000)],
            attributes={"wwtw_id": [11, 11, 12]},
        ),
        "lpa": Layer(
            name="lpa_boundaries",
            columns=[("name", "TEXT")],
            geometries=[box(0, 0, 2000, 1000)],
            attributes={"name": ["Testshire"]},
        ),
        "sub": Layer(
            name="subcatchments",
            columns=[("opcat_name", "TEXT")],
            geometries=[box(0, 0, 2000, 1000)],
            attributes={"opcat_name": ["Test Water"]},
        ),
        "coeff": _coefficient_layer(),
        # EDP 7 is drawn as two polygons (one per catchment) under one id and name.
        "edps": Layer(
            name="edp_boundaries",
            columns=[("edp_id", "INTEGER"), ("edp_name", "TEXT")],
            geometries=[box(0, 0, 1000, 1000), box(1000, 0, 2000, 1000)],
            attributes={"edp_id": [7, 7], "edp_name": ["Test EDP", " Test EDP"]},
        ),
        "excluded": Layer(
            name="excluded_areas",
            columns=[("name", "TEXT")],
            geometries=[box(0, 900, 100, 1000), box(1900, 900, 2000, 1000)],
            attributes={"name": ["Corner SSSI buffer", None]},
        ),
    }


PERMIT_COLS = [
    ("wwtw_id", "TEXT"),
    ("wwtw_name", "TEXT"),
    ("wwtw_subcatchment", "TEXT"),
    ("n_conc_2025_2030", "REAL"),
    ("n_conc_2030_on", "REAL"),
    ("p_conc_2025_2030", "REAL"),
    ("p_conc_2030_on", "TEXT"),
]


def tiny_tables() -> dict[str, Table]:
    return {
        "permits": Table(
            "wwtw_permits",
            PERMIT_COLS,
            [
                ("\t11", " Works A ", "Test Water", 27.0, 10.0, 1.0, "0.25"),
                ("12.0", "Works B", "", None, 10.0, 8.0, ""),
                (None, "No id", None, 1.0, 1.0, 1.0, "1"),
                ("abc", "Bad id", None, 1.0, 1.0, 1.0, "1"),
                ("11", "Works A again", None, 99.0, 99.0, 99.0, "99"),
                (141, "Package Treatment Plant default", None, 25.0, 25.0, 4.5, "4.5"),
            ],
        ),
        "rates": Table(
            "occupancy_rates",
            [
                ("nn_catchment", "TEXT"),
                ("dwelling_category", "TEXT"),
                ("occupancy_rate", "REAL"),
                ("water_usage_l_per_person_day", "REAL"),
            ],
            [
                ("Alpha SAC", None, 2.4, 110.0),
                (None, "Student  Accommodation ", 1.0, 120.0),
                ("DEFAULT", None, 2.5, 121.0),
            ],
        ),
        "levy": Table(
            "levy_rates",
            [
                ("edp_id", "TEXT"),
                ("edp_name", "TEXT"),
                ("n_gbp_per_kg", "REAL"),
                ("p_gbp_per_kg", "TEXT"),
                ("monitoring_share", "REAL"),
                ("maintenance_share", "REAL"),
                ("admin_share", "REAL"),
            ],
            [(2, "Alpha", 2500.1, "30000.55", 0.05, 0.1, 0.03)],
        ),
        "charges": Table(
            "levy_charges",
            [
                ("edp_id", "INTEGER"),
                ("edp_name", "TEXT"),
                ("edp_start_date", "TEXT"),
                ("charge_valid_from", "TEXT"),
                ("charge_valid_to", "TEXT"),
                ("base_charge_per_unit", "TEXT"),
            ],
            [
                (7, "Test EDP", "2026-01-01", "2026-01-01", "2026-12-31", "2193.6649"),
                (7, "Test EDP", "2026-01-01", "2027-01-01", "2027-12-31", " 2675.0000"),
            ],
        ),
        "index": Table(
            "levy_inflation_index",
            [("charging_year", "INTEGER"), ("cil_index", "TEXT"), ("index_factor", "TEXT")],
            [(2026, "400", "1.0000"), ("2027", "412.5", "1.0313")],
        ),
        "settings": Table(
            "levy_settings", [("key", "TEXT"), ("value", "TEXT")], [("vat_rate", "0.20")]
        ),
        "info": Table(
            "bundle_info",
            [("name", "TEXT"), ("version", "TEXT"), ("created", "TEXT"), ("description", "TEXT")],
            [("tiny", "1.0", "2026-01-01", "SYNTHETIC test bundle")],
        ),
    }


def write_tiny(
    path: Path, layers: dict[str, Layer] | None = None, tables: dict[str, Table] | None = None
) -> Path:
    return write_geopackage(
        path, (tiny_layers() | (layers or {})).values(), (tiny_tables() | (tables or {})).values()
    )


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny(tmp_path_factory.mktemp("tiny") / "tiny.gpkg")


@pytest.fixture(scope="module")
def repo(tiny: Path) -> GeoPackageBoundaryData:
    return GeoPackageBoundaryData(tiny)


def test_info_carries_the_file_sha256(repo: GeoPackageBoundaryData, tiny: Path) -> None:
    info = repo.info()
    assert (info.name, info.version, info.created) == ("tiny", "1.0", "2026-01-01")
    assert info.sha256 == hashlib.sha256(tiny.read_bytes()).hexdigest()
    assert info.synthetic


def test_permits_are_cleaned(repo: GeoPackageBoundaryData) -> None:
    permits = repo.lookups().permits
    assert sorted(permits) == [11, 12, 141]
    a = permits[11]
    assert (a.wwtw_name, a.wwtw_subcatchment, a.n_conc_2025_2030, a.p_conc_2030_on) == (
        "Works A",
        "Test Water",
        27.0,
        0.25,
    )
    b = permits[12]
    assert (b.wwtw_subcatchment, b.n_conc_2025_2030, b.p_conc_2030_on) == (None, None, None)
    assert permits[141].p_conc_2025_2030 == 4.5


def test_rates(repo: GeoPackageBoundaryData) -> None:
    lookups = repo.lookups()
    assert lookups.rates.default == OccupancyRate(2.5, 121.0)
    assert lookups.rates.by_catchment == {"Alpha SAC": OccupancyRate(2.4, 110.0)}
    assert lookups.rates.by_category == {"student accommodation": OccupancyRate(1.0, 120.0)}


def test_reference_for_reads_coefficients_whose_bbox_meets_the_site(
    repo: GeoPackageBoundaryData,
) -> None:
    ref = repo.reference_for(box(150, 150, 250, 250))
    by_n = {c.lu_curr_n_coeff: c for c in ref.coefficients}
    # Rows 1-2, columns 1-2: fids 22, 23, 42, 43; fid 22's "n/a" reads as NULL.
    assert sorted(by_n, key=str) == sorted([None, 23.0, 42.0, 43.0], key=str)
    assert by_n[42.0].lu_curr_p_coeff == 0.42
    assert by_n[43.0].lu_curr_p_coeff is None
    assert [z.value for z in ref.wwtw_catchments] == [11]
    assert [(c.n2k_site_name, c.edp_id) for c in ref.nn_catchments] == [("Alpha SAC", "2")]


def test_touching_bboxes_count_and_the_read_is_a_superset(repo: GeoPackageBoundaryData) -> None:
    assert len(repo.reference_for(box(100, 100, 200, 200)).coefficients) == 9
    # An L whose bbox covers 3 x 3 squares though it misses the top-right one.
    ell = Polygon([(10, 10), (290, 10), (290, 90), (90, 90), (90, 290), (10, 290)])
    ref = repo.reference_for(ell)
    assert len(ref.coefficients) == 9
    straddling = repo.reference_for(box(900, 400, 1100, 600))
    assert sorted(z.value for z in straddling.wwtw_catchments) == [11, 11, 12]
    assert [c.edp_id for c in straddling.nn_catchments] == ["2", "3"]


def test_the_charging_schedule_index_and_vat_rate_are_read_exactly(
    repo: GeoPackageBoundaryData,
) -> None:
    lookups = repo.lookups()
    first, second = lookups.levy_charges
    assert (first.edp_id, first.edp_name, first.base_charge_per_unit) == (
        7,
        "Test EDP",
        Decimal("2193.6649"),
    )
    assert str(second.base_charge_per_unit) == "2675.0000"  # the text, padding stripped
    assert (second.edp_start_date, second.charge_valid_from, second.charge_valid_to) == (
        date(2026, 1, 1),
        date(2027, 1, 1),
        date(2027, 12, 31),
    )
    assert sorted(lookups.inflation_index) == [2026, 2027]
    assert str(lookups.inflation_index[2027].index_factor) == "1.0313"
    assert lookups.inflation_index[2027].cil_index == Decimal("412.5")
    assert str(lookups.vat_rate) == "0.20"
    assert dict(lookups.edps) == {7: "Test EDP"}


def test_reference_for_reads_the_edps_and_excluded_areas_near_a_site(
    repo: GeoPackageBoundaryData,
) -> None:
    ref = repo.reference_for(box(50, 950, 60, 960))
    assert [(e.edp_id, e.edp_name) for e in ref.edps] == [(7, "Test EDP")]
    assert [a.name for a in ref.excluded_areas] == ["Corner SSSI buffer"]
    far = repo.reference_for(box(1950, 950, 1960, 960))
    assert [a.name for a in far.excluded_areas] == [""]  # unnamed, still an excluded area


def test_an_older_bundle_with_the_per_kg_tariff_opens_and_one_without_it_too(
    tiny: Path, tmp_path: Path
) -> None:
    # The tiny bundle still carries an old per-kg `levy_rates` table, even a broken row of it:
    # it is ignored, never the levy.
    old = Path(shutil.copy(tiny, tmp_path / "old-tariff.gpkg"))
    _edit("UPDATE levy_rates SET admin_share = 1.5")(old)
    with_tariff = GeoPackageBoundaryData(old).lookups()
    path = Path(shutil.copy(tiny, tmp_path / "no-tariff.gpkg"))
    _edit("DROP TABLE levy_rates")(path)
    without = GeoPackageBoundaryData(path).lookups()
    assert with_tariff.levy_charges == without.levy_charges
    assert len(without.levy_charges) > 0


def test_column_names_match_case_insensitively(tmp_path: Path, tiny: Path) -> None:
    path = shutil.copy(tiny, tmp_path / "caps.gpkg")
    with sqlite3.connect(path) as db:
        db.execute('ALTER TABLE nn_catchments RENAME COLUMN n2k_site_name TO "N2K_Site_Name"')
        db.execute('ALTER TABLE wwtw_permits RENAME COLUMN wwtw_id TO "WWTW_ID"')
    repo = GeoPackageBoundaryData(path)
    assert sorted(repo.lookups().permits) == [11, 12, 141]
    assert repo.reference_for(box(1, 1, 2, 2)).nn_catchments[0].n2k_site_name == "Alpha SAC"


def _edit(*sql: str) -> Callable[[Path], None]:
    def run(path: Path) -> None:
        with sqlite3.connect(path) as db:
            for statement in sql:
                db.execute(statement)

    return run


BROKEN = {
    "missing layer": (_edit("DROP TABLE subcatchments"), "missing layer 'subcatchments'"),
    "missing table": (_edit("DROP TABLE levy_charges"), "missing table 'levy_charges'"),
    "missing edp layer": (_edit("DROP TABLE edp_boundaries"), "missing layer 'edp_boundaries'"),
    "charge in exponent form": (
        _edit("UPDATE levy_charges SET base_charge_per_unit = '2.675E3' WHERE rowid = 2"),
        "table 'levy_charges' row 2: base_charge_per_unit is not decimal text such as "
        "'2675.0000': '2.675E3'",
    ),
    "charge not above zero": (
        _edit("UPDATE levy_charges SET base_charge_per_unit = '0.0000' WHERE rowid = 2"),
        "table 'levy_charges' row 2: base_charge_per_unit 0.0000 is not above zero",
    ),
    "charge window backwards": (
        _edit("UPDATE levy_charges SET charge_valid_to = '2026-12-31' WHERE rowid = 2"),
        "table 'levy_charges' row 2: charge_valid_to 2026-12-31 is before "
        "charge_valid_from 2027-01-01",
    ),
    "charge windows overlap": (
        _edit("UPDATE levy_charges SET charge_valid_from = '2026-12-31' WHERE rowid = 2"),
        "table 'levy_charges' row 2: the window 2026-12-31 to 2027-12-31 of edp_id 7 overlaps "
        "2026-01-01 to 2026-12-31",
    ),
    "charge date not iso": (
        _edit("UPDATE levy_charges SET edp_start_date = '01/01/2026' WHERE rowid = 1"),
        "table 'levy_charges' row 1: edp_start_date is not a YYYY-MM-DD date: '01/01/2026'",
    ),
    "index year twice": (
        _edit("UPDATE levy_inflation_index SET charging_year = 2026"),
        "table 'levy_inflation_index' row 2: charging_year 2026 is listed twice",
    ),
    "no vat rate": (
        _edit("DELETE FROM levy_settings"),
        "table 'levy_settings' must hold one 'vat_rate' row; it holds 0",
    ),
    "vat rate as percent": (
        _edit("UPDATE levy_settings SET value = '20'"),
        "table 'levy_settings': vat_rate must be decimal text in [0, 1]: '20'",
    ),
    "edp id with two names": (
        _edit("UPDATE edp_boundaries SET edp_name = 'Other EDP' WHERE fid = 2"),
        "layer 'edp_boundaries' fid 2: edp_id 7 is named 'Other EDP' here and 'Test EDP' elsewhere",
    ),
    "edp without id": (
        _edit("UPDATE edp_boundaries SET edp_id = NULL WHERE fid = 2"),
        "layer 'edp_boundaries' fid 2 needs a whole-number edp_id and an edp_name",
    ),
    "missing column": (
        _edit("ALTER TABLE lpa_boundaries RENAME COLUMN name TO nom"),
        "layer 'lpa_boundaries' has no column 'name'",
    ),
    "missing table column": (
        _edit("ALTER TABLE wwtw_permits DROP COLUMN n_conc_2030_on"),
        "table 'wwtw_permits' has no column 'n_conc_2030_on'",
    ),
    "wrong crs": (
        _edit("UPDATE gpkg_geometry_columns SET srs_id = 4326 WHERE table_name = 'nn_catchments'"),
        "layer 'nn_catchments' is in EPSG:4326, not EPSG:27700",
    ),
    "no rtree": (
        _edit("DROP TABLE rtree_land_use_coefficients_geom"),
        "layer 'land_use_coefficients' has no R-tree spatial index",
    ),
    "line layer": (
        _edit(
            "UPDATE gpkg_geometry_columns SET geometry_type_name = 'LINESTRING' "
            "WHERE table_name = 'subcatchments'"
        ),
        "layer 'subcatchments' holds LINESTRING geometries, not polygons",
    ),
    "not numeric concentration": (
        _edit("UPDATE wwtw_permits SET p_conc_2030_on = 'n/a' WHERE wwtw_name = 'Works B'"),
        "table 'wwtw_permits' row 2 (wwtw_id 12): p_conc_2030_on is not a number: 'n/a'",
    ),
    "no default rate": (
        _edit("DELETE FROM occupancy_rates WHERE nn_catchment = 'DEFAULT'"),
        "table 'occupancy_rates' has no 'default' row",
    ),
    "two info rows": (
        _edit("INSERT INTO bundle_info (name) VALUES ('again')"),
        "table 'bundle_info' must have exactly one row; it has 2",
    ),
    "no info rows": (
        _edit("DELETE FROM bundle_info"),
        "table 'bundle_info' must have exactly one row; it has 0",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_bundles_are_refused_naming_the_problem(
    case: str, tiny: Path, tmp_path: Path
) -> None:
    edit, message = BROKEN[case]
    path = Path(shutil.copy(tiny, tmp_path / "broken.gpkg"))
    edit(path)
    with pytest.raises(BrokenBundle) as caught:
        GeoPackageBoundaryData(path)
    assert message in caught.value.message
    assert caught.value.code == "broken_bundle"


def test_every_missing_part_is_named_at_once(tiny: Path, tmp_path: Path) -> None:
    path = Path(shutil.copy(tiny, tmp_path / "broken.gpkg"))
    _edit("DROP TABLE levy_settings", "ALTER TABLE lpa_boundaries RENAME COLUMN name TO nom")(path)
    with pytest.raises(BrokenBundle, match=r"no column 'name'.*missing table 'levy_settings'"):
        GeoPackageBoundaryData(path)


def test_missing_file_and_non_geopackages_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BrokenBundle, match="bundle file not found"):
        GeoPackageBoundaryData(tmp_path / "nope.gpkg")
    text = tmp_path / "text.gpkg"
    text.write_text("hello, this is not a database at all" * 100)
    with pytest.raises(BrokenBundle, match="not a GeoPackage"):
        GeoPackageBoundaryData(text)
    plain = tmp_path / "plain.gpkg"
    with sqlite3.connect(plain) as db:
        db.execute("CREATE TABLE t (a)")
    with pytest.raises(BrokenBundle, match="not a GeoPackage"):
        GeoPackageBoundaryData(plain)


def test_invalid_and_non_polygon_small_layer_features_are_named(tmp_path: Path) -> None:
    bowtie = Polygon([(0, 0), (10, 10), (10, 0), (0, 10)])
    lpa = Layer(
        name="lpa_boundaries",
        columns=[("name", "TEXT")],
        geometries=[box(0, 0, 5, 5), bowtie],
        attributes={"name": ["A", "B"]},
    )
    path = write_tiny(tmp_path / "bowtie.gpkg", layers={"lpa": lpa})
    with pytest.raises(
        BrokenBundle,
        match=r"layer 'lpa_boundaries' fid 2 has an invalid geometry \(Self-intersection",
    ):
        GeoPackageBoundaryData(path)
    sub = Layer(
        name="subcatchments",
        columns=[("opcat_name", "TEXT")],
        geometries=[LineString([(0, 0), (1, 1)])],
        attributes={"opcat_name": ["L"]},
    )
    path = write_tiny(tmp_path / "line.gpkg", layers={"sub": sub})
    with pytest.raises(
        BrokenBundle, match="layer 'subcatchments' fid 1 is a LineString, not a polygon"
    ):
        GeoPackageBoundaryData(path)


def test_invalid_coefficient_polygons_are_refused_when_read(tmp_path: Path) -> None:
    bowtie = Polygon([(5000, 0), (5100, 100), (5100, 0), (5000, 100)])
    layer = _coefficient_layer()
    geoms = [*layer.geometries, bowtie]
    attrs = {c: [*v, 1.0] for c, v in layer.attributes.items()}
    path = write_tiny(
        tmp_path / "c.gpkg",
        layers={
            "coeff": Layer(
                name=layer.name, columns=layer.columns, geometries=geoms, attributes=attrs
            )
        },
    )
    repo = GeoPackageBoundaryData(path)  # the big layer is not scanned at load
    assert len(repo.reference_for(box(0, 0, 50, 50)).coefficients) == 1
    with pytest.raises(
        BrokenBundle, match="layer 'land_use_coefficients' fid 201 has an invalid geometry"
    ):
        repo.reference_for(box(5040, 40, 5060, 60))


def test_a_forked_worker_reads_through_its_own_connection(repo: GeoPackageBoundaryData) -> None:
    parent = id(repo._connection())
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what it read and whether its handle is new
        try:
            count = len(repo.reference_for(box(150, 150, 250, 250)).coefficients)
            os.write(write, f"{count} {id(repo._connection()) != parent}".encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 100).decode()
    os.waitpid(pid, 0)
    assert answer == "4 True"
    assert id(repo._connection()) == parent  # the parent keeps its own


def test_each_thread_reads_through_its_own_connection(tiny: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    data = GeoPackageBoundaryData(tiny)
    site = box(150, 150, 450, 250)
    alone = data.reference_for(site)
    main_connection = data._connection()
    with ThreadPoolExecutor(2) as pool:
        # SQLite refuses a connection used from a thread other than its creator's,
        # so these reads succeed only if each pool thread opened its own.
        reads = list(pool.map(lambda _: data.reference_for(site), range(8)))
        in_threads = list(pool.map(lambda _: data._connection(), range(8)))
    assert all(c is not main_connection for c in in_threads)
    assert len(alone.coefficients) == 8 and all(r == alone for r in reads)
