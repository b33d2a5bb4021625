"""The synthetic generator: a gap-free parcel tiling, GDAL-readable output, the Norfolk design."""

from __future__ import annotations

import hashlib
from datetime import date
from decimal import Decimal
from importlib.resources import files
from pathlib import Path

import numpy as np
import pyogrio
import pytest
import shapely

from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.bundles import synthetic_norfolk as norfolk
from nrf.bundles.synthetic_bundle import generate_bundle, generate_norfolk_demo, plan_grid
from nrf.bundles.synthetic_norfolk import BROADS, WENSUM
from nrf.bundles.synthetic_parcels import parcel_rows
from support.reference import QUOTE_DATE

DATA = Path(str(files("nrf") / "data"))
DEMO = DATA / "synthetic-norfolk.gpkg"
SAMPLES = DATA / "samples" / "defra-rlb-samples"
LAYERS = [
    "nn_catchments",
    "wwtw_catchments",
    "lpa_boundaries",
    "subcatchments",
    "wwtw_permits",
    "occupancy_rates",
    "bundle_info",
    "land_use_coefficients",
    "edp_boundaries",
    "excluded_areas",
    "levy_charges",
    "levy_inflation_index",
    "levy_settings",
]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[int, int]]]:
    calls: list[tuple[int, int]] = []
    path = tmp_path_factory.mktemp("gen") / "small.gpkg"
    generate_bundle(path, 2_000, seed=7, progress=lambda d, t: calls.append((d, t)))
    return path, calls


@pytest.fixture(scope="module")
def parcels(small: tuple[Path, list[tuple[int, int]]]) -> np.ndarray:
    frame = pyogrio.read_dataframe(small[0], layer="land_use_coefficients")
    assert frame.crs.to_epsg() == 27700
    return np.asarray(frame.geometry.values, dtype=object)


def test_gdal_reads_every_layer_with_the_right_crs_and_counts(small: tuple[Path, list]) -> None:
    path, _ = small
    assert sorted(pyogrio.list_layers(path)[:, 0]) == sorted(LAYERS)
    info = pyogrio.read_info(path, layer="land_use_coefficients")
    assert info["features"] == 2_000
    assert info["crs"] == "EPSG:27700"
    assert info["capabilities"]["fast_spatial_filter"]  # GDAL found the R-tree
    # The Norfolk design's inputs (synthetic_norfolk): 13 works seeds (Whitlingham's two among
    # them), each one polygon; 14 permit rows: 11 works (all but 2690), 141, a NULL-id copy of
    # 141 and a duplicate 1065.
    assert pyogrio.read_info(path, layer="wwtw_catchments")["features"] == 13
    assert len(pyogrio.read_dataframe(path, layer="wwtw_permits")) == 14


def test_progress_reaches_the_total(small: tuple[Path, list[tuple[int, int]]]) -> None:
    _, calls = small
    assert calls[-1] == (2_000, 2_000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_parcels_tile_the_extent_without_gaps_or_overlaps(parcels: np.ndarray) -> None:
    minx, miny, maxx, maxy = shapely.total_bounds(parcels)
    extent_area = (maxx - minx) * (maxy - miny)
    areas = shapely.area(parcels)
    assert areas.sum() == pytest.approx(extent_area, rel=1e-6)
    union = shapely.union_all(parcels)
    assert union.area == pytest.approx(extent_area, rel=1e-6)
    assert shapely.symmetric_difference(union, shapely.box(minx, miny, maxx, maxy)).area < 1e-3


def test_parcels_look_like_fields(parcels: np.ndarray) -> None:
    assert shapely.is_valid(parcels).all()
    vertices = shapely.get_num_coordinates(parcels) - 1  # rings repeat their first point
    assert set(np.unique(vertices)) == {5, 6, 7, 8}
    # Sides of 122-425 m (synthetic_parcels) make 1.5-18.1 ha before corners jitter and
    # edges bend by a few per cent of their neighbours: 1-23 ha leaves room for that.
    hectares = shapely.area(parcels) / 10_000
    assert hectares.min() >= 1.0
    assert hectares.max() <= 23.0


def test_coefficients_are_in_range_with_a_few_null_rows(small: tuple[Path, list]) -> None:
    frame = pyogrio.read_dataframe(small[0], layer="land_use_coefficients", read_geometry=False)
    nulls = frame["lu_curr_n_coeff"].isna()
    assert frame[nulls].isna().all().all()  # a NULL row has no coefficient at all
    assert 0 < nulls.sum() < 40  # ~0.5 % of 2,000
    full = frame[~nulls]
    for col, lo, hi in [
        ("lu_curr_n_coeff", 5, 40),
        ("lu_curr_p_coeff", 0.1, 2.5),
        ("n_resi_coeff", 8, 20),
        ("p_resi_coeff", 0.3, 1.5),
    ]:
        assert full[col].between(lo, hi).all()


def test_adapter_and_gdal_agree_on_a_bbox_read(small: tuple[Path, list]) -> None:
    path, _ = small
    minx, miny, _, _ = pyogrio.read_info(path, layer="land_use_coefficients")["total_bounds"]
    site = shapely.box(minx + 1_000, miny + 1_000, minx + 1_400, miny + 1_300)
    gdal = pyogrio.read_dataframe(path, layer="land_use_coefficients", bbox=site.bounds)
    ours = GeoPackageBoundaryData(path).reference_for(site).coefficients
    assert len(ours) == len(gdal) > 0
    assert sum(c.geometry.area for c in ours) == pytest.approx(gdal.geometry.area.sum())


def test_chunking_never_changes_the_parcels() -> None:
    grid = plan_grid(600, seed=3)
    one = np.concatenate([p for _, p in parcel_rows(grid, 1)])
    all_rows = np.concatenate([p for _, p in parcel_rows(grid, 10_000)])
    assert shapely.equals_exact(one, all_rows, 0).all()


def test_explicit_extent_is_tiled_exactly(tmp_path: Path) -> None:
    out = generate_bundle(tmp_path / "e.gpkg", 300, extent=(10_000, 20_000, 15_000, 26_000))
    assert out.extent == pytest.approx((10_000, 20_000, 15_000, 26_000))
    geoms = pyogrio.read_dataframe(out.path, layer="land_use_coefficients").geometry.values
    assert len(geoms) == out.coefficient_count
    assert abs(out.coefficient_count - 300) <= 30
    assert shapely.union_all(geoms).area == pytest.approx(5_000 * 6_000, rel=1e-6)


def test_generation_is_reproducible(tmp_path: Path) -> None:
    a = generate_bundle(tmp_path / "a.gpkg", 500, seed=11).path
    b = generate_bundle(tmp_path / "b.gpkg", 500, seed=11).path
    assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()


# --- the bundled Norfolk demo against the real Broads & Wensum sample sites ---


@pytest.fixture(scope="module")
def demo() -> GeoPackageBoundaryData:
    return GeoPackageBoundaryData(DEMO)


def test_demo_is_small_and_labelled_synthetic(demo: GeoPackageBoundaryData) -> None:
    assert DEMO.stat().st_size < 8 * 1024 * 1024
    info = demo.info()
    assert info.name == "nrf-synthetic-norfolk"
    assert info.description.startswith("SYNTHETIC DEMONSTRATION DATA - not real reference data; ")
    assert info.synthetic


def test_demo_matches_its_generator(tmp_path: Path) -> None:
    fresh = generate_norfolk_demo(tmp_path / "demo.gpkg")
    assert (
        fresh.coefficient_count
        == pyogrio.read_info(DEMO, layer="land_use_coefficients")["features"]
    )
    assert 25_000 <= fresh.coefficient_count <= 60_000


def _overlap(site: shapely.Geometry, geoms: list[shapely.Geometry]) -> list[float]:
    return [shapely.intersection(site, g).area for g in geoms]


def test_demo_design_holds_for_the_real_sites(demo: GeoPackageBoundaryData) -> None:
    sites = pyogrio.read_dataframe(SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp")
    assert len(sites) == 245
    permits = demo.lookups().permits
    straddling = outside = fallback_outside = fallback_inside = no_permit_outside = 0
    for site in sites.geometry:
        ref = demo.reference_for(site)
        catchments = {
            c.n2k_site_name for c in ref.nn_catchments if site.intersection(c.geometry).area > 0
        }
        works = _overlap(site, [z.geometry for z in ref.wwtw_catchments])
        majority = ref.wwtw_catchments[int(np.argmax(works))].value if any(works) else 141
        straddling += catchments == {WENSUM, BROADS}
        outside += not catchments
        fallback_outside += majority == 141 and not catchments
        fallback_inside += majority == 141 and bool(catchments)
        no_permit_outside += majority not in permits and not catchments
        assert ref.coefficients, "every site lies on synthetic parcels"
    assert straddling >= 5
    assert outside >= 15
    assert fallback_outside >= 5
    assert fallback_inside >= 3
    assert no_permit_outside >= 1


def test_demo_small_site_is_in_the_wensum(demo: GeoPackageBoundaryData) -> None:
    small = pyogrio.read_dataframe(
        SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
    )
    site = small.geometry.iloc[0]
    ref = demo.reference_for(site)
    inside = [c.n2k_site_name for c in ref.nn_catchments if c.geometry.contains(site)]
    assert inside == [WENSUM]


def test_demo_layers_and_tables(demo: GeoPackageBoundaryData) -> None:
    everything = demo.reference_for(shapely.box(0, 0, 700_000, 700_000))
    broads = [c for c in everything.nn_catchments if c.n2k_site_name == BROADS]
    # One N2K site, two catchments of their own labels and OIDs (the design's, by hand).
    assert sorted((c.label, c.edp_id) for c in broads) == [
        ("Bure, Ant and Thurne (made up)", "2"),
        ("Yare (made up)", "3"),
    ]
    ids = [z.value for z in everything.wwtw_catchments]
    # The design (synthetic_norfolk): 13 works seeds, Whitlingham (4521) twice: 12 works.
    assert len(set(ids)) == 12
    twice = [i for i in set(ids) if ids.count(i) == 2]
    assert len(twice) == 1
    parts = [z.geometry for z in everything.wwtw_catchments if z.value == twice[0]]
    assert parts[0].disjoint(parts[1])
    lookups = demo.lookups()
    assert set(ids) - set(lookups.permits) == {2690}
    assert 1187 in lookups.permits  # stored as "\t1187"
    assert lookups.permits[141].wwtw_name == "Package Treatment Plant default"
    assert len(everything.lpa_boundaries) == 6 + 1  # its six LPAs, and Norwich cut out of them
    assert len(everything.subcatchments) == 6  # Nar, Wensum, Bure and Ant, Thurne, Yare, Tas
    rates = lookups.rates
    assert rates.by_catchment[WENSUM].water_usage_l_per_person_day == 120.0
    assert rates.by_catchment[BROADS].water_usage_l_per_person_day == 110.0
    assert rates.by_category["hotel"].water_usage_l_per_person_day == 240.0


def test_demo_has_one_edp_over_the_catchments_and_its_charging_schedule(
    demo: GeoPackageBoundaryData,
) -> None:
    everything = demo.reference_for(shapely.box(0, 0, 700_000, 700_000))
    # Defra's Norfolk EDP (id 1), drawn as the three catchment polygons under one id and name.
    assert {(e.edp_id, e.edp_name) for e in everything.edps} == {(1, norfolk.NORFOLK_EDP)}
    catchments = shapely.union_all([c.geometry for c in everything.nn_catchments])
    edp = shapely.union_all([e.geometry for e in everything.edps])
    assert edp.symmetric_difference(catchments).area == 0
    assert [a.name for a in everything.excluded_areas] == [norfolk.EXCLUDED_AREA]
    lookups = demo.lookups()
    assert dict(lookups.edps) == {1: norfolk.NORFOLK_EDP}
    [charge] = lookups.levy_charges
    assert (charge.base_charge_per_unit, charge.charge_valid_to) == (
        Decimal("2675.0000"),
        date(2027, 12, 31),
    )
    assert lookups.inflation_index[2026].index_factor == Decimal("1.0000")
    assert lookups.vat_rate == Decimal("0.20")


def test_the_demo_prices_most_sample_sites_and_refuses_a_few(
    demo: GeoPackageBoundaryData,
) -> None:
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
    from nrf.domain.assessment import AssessDevelopments
    from nrf.domain.rules import rule_set_named
    from nrf.domain.validation import validate_features

    sites = validate_features(
        read_boundary_file(SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp")
    )
    run = AssessDevelopments(demo)(sites, rule_set_named(None), QUOTE_DATE)
    codes = [s.levy_refusal.code for s in run.sites if s.levy_refusal is not None]
    # The excluded area meets a few sites (the demo shows the refusal); most are priced.
    assert 1 <= codes.count("excluded_area") <= 5
    priced = [(s.site.dwellings, s.pricing) for s in run.sites if s.pricing is not None]
    assert len(priced) > len(run.sites) * 0.8
    # Each priced site: £2,675.00 a home in 2026, so its levy is 2,675.00 x its homes.
    assert all(p.amount_excluding_vat == Decimal("2675.00") * homes for homes, p in priced)
    assert run.levy_total_excluding_vat == sum(
        (p.amount_excluding_vat for _, p in priced), Decimal("0.00")
    )


def test_processes_change_nothing_in_a_batch(demo: GeoPackageBoundaryData) -> None:
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
    from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
    from nrf.domain.assessment import AssessDevelopments
    from nrf.domain.rules import rule_set_named
    from nrf.domain.validation import validate_features

    sites = validate_features(
        read_boundary_file(SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp")
    )
    rules = rule_set_named(None)
    seen: list[tuple[int, int]] = []
    one_by_one = AssessDevelopments(demo)(sites, rules, QUOTE_DATE)
    forked = AssessDevelopments(demo, ForkedSiteMap(3))(
        sites, rules, QUOTE_DATE, progress=lambda done, total: seen.append((done, total))
    )
    assert forked == one_by_one
    assert [s.site.rlb_id for s in forked.sites] == [s.site.rlb_id for s in one_by_one.sites]
    assert len(forked.sites) + len(forked.out_of_scope) == 245
    assert seen == [(i, 245) for i in range(1, 246)]


def test_the_shipped_demo_passes_the_quality_gate(tmp_path: Path) -> None:
    """`nrf bundle check` on the bundled demo: no error, so its catchments are fully tiled by
    its parcels (no coverage_gap) and its permit table's repeated works agrees with itself."""
    import shutil

    from nrf.bundles.check import check_bundle

    report = check_bundle(Path(shutil.copy(DEMO, tmp_path / "demo.gpkg")))
    assert report.passed, [f for f in report.findings if f.severity == "error"]
    # Each catchment's covered share: its parcels' area inside it over its area, 1.0 = whole.
    assert report.figures["nn_catchment_coverage"] == {WENSUM: 1.0, BROADS: 1.0}
    # The reader's own cleaning still meets dirt: works 1065 is listed twice, alike.
    assert [row[0] for row in norfolk.permits_table().rows].count("1065") == 2


def test_every_catchment_of_the_design_lies_inside_the_parcels_extent() -> None:
    extent = shapely.box(*norfolk.NORFOLK_EXTENT)
    for layer in (norfolk.nn_layer(), norfolk.edp_layer()):
        assert all(extent.contains(g) for g in layer.geometries), layer.name
