"""Boundary files read for real: the Defra samples, and generated bad files for every code."""

from __future__ import annotations

import io
import itertools
import json
import math
import shutil
import struct
import tempfile
import warnings
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pyogrio.raw
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyproj import Transformer
from shapely.geometry import Point, box

import nrf
from nrf.adapters.site_boundaries.boundary_files import (
    features_from_geojson,
    read_boundary_bytes,
    read_boundary_file,
)
from nrf.adapters.site_boundaries.boundary_zip import _copy
from nrf.domain.errors import InvalidInput
from nrf.domain.model import Development
from nrf.domain.validation import InputLimits, RawFeature, validate_features

SAMPLES = Path(nrf.__file__).parent / "data" / "samples" / "defra-rlb-samples"
BIG_SHP = SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
SMALL_SHP = SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
SMALL_GEOJSON = SAMPLES / "BnW_small_under_1_hectare_geojson" / "BnW_small_under_1_hectare.geojson"
BNG_NAME = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
SITE = box(600_000, 300_000, 600_100, 300_100)
GOOD = {"id": "A1", "name": "Site", "dwelling_category": "housing", "source": "t", "dwellings": 5}
LIMITS = InputLimits()


@pytest.fixture(autouse=True)
def private_tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Temp dirs the readers make go here, so each test can prove they were removed."""
    temp = tmp_path / "readers-temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    yield temp
    assert list(temp.iterdir()) == []


def assess(path: Path, limits: InputLimits = LIMITS) -> list[Development]:
    return validate_features(read_boundary_file(path, limits), limits)


def codes(path: Path, limits: InputLimits = LIMITS) -> list[tuple[str, int | None]]:
    with pytest.raises(InvalidInput) as caught:
        assess(path, limits)
    return [(p.code, p.feature) for p in caught.value.problems]


def geojson(
    tmp_path: Path,
    features: Sequence[tuple[dict[str, object], object]],
    crs: object = BNG_NAME,
    name: str = "sites.geojson",
) -> Path:
    document: dict[str, object] = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "properties": props, "geometry": geometry}
            for props, geometry in features
        ],
    }
    if crs is not None:
        document["crs"] = crs
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def square(x: float = 600_000, y: float = 300_000, side: float = 100) -> dict[str, object]:
    ring = [[x, y], [x + side, y], [x + side, y + side], [x, y + side], [x, y]]
    return {"type": "Polygon", "coordinates": [ring]}


def write_ogr(
    path: Path,
    geometries: Sequence[bytes | None],
    fields: Mapping[str, Sequence[object]],
    crs: str | None = "EPSG:27700",
    layer: str | None = None,
    geometry_type: str = "Polygon",
) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # writing a CRS-less file is the point
        _write(path, geometries, fields, crs, layer, geometry_type)
    return path


def _write(
    path: Path,
    geometries: Sequence[bytes | None],
    fields: Mapping[str, Sequence[object]],
    crs: str | None,
    layer: str | None,
    geometry_type: str,
) -> None:
    pyogrio.raw.write(
        path,
        np.array(list(geometries), dtype=object),
        [np.array(list(values)) for values in fields.values()],
        fields=list(fields),
        geometry_type=geometry_type,
        crs=crs,
        layer=layer,
        driver="GPKG" if path.suffix == ".gpkg" else "ESRI Shapefile",
    )


def legacy_fields(n: int, **changes: Sequence[object]) -> dict[str, Sequence[object]]:
    fields: dict[str, Sequence[object]] = {
        "id": [f"S{i}" for i in range(1, n + 1)],
        "Name": ["site"] * n,
        "Dwel_Cat": ["housing"] * n,
        "Source": ["test"] * n,
        "Dwellings": [10] * n,
    }
    return {**fields, **changes}


def zip_of(path: Path, entries: Mapping[str, bytes | Path]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            data = content.read_bytes() if isinstance(content, Path) else content
            archive.writestr(name, data)
    return path


def shapefile_parts(shp: Path) -> dict[str, Path]:
    return {p.suffix: p for p in shp.parent.iterdir() if p.stem == shp.stem}


def shoelace_area(path: Path) -> float:
    """The one polygon's area from its coordinates as written, without GDAL or shapely."""
    [feature] = json.loads(path.read_text())["features"]
    [ring] = feature["geometry"]["coordinates"]
    x0, y0 = ring[0]
    p = [(x - x0, y - y0) for x, y in ring]  # about the first vertex, for precision
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in itertools.pairwise(p))) / 2


# ---- the real Defra samples ----------------------------------------------------------------


def test_the_245_site_sample_reads_in_order_with_legacy_columns() -> None:
    developments = assess(BIG_SHP)
    # Facts of the file, read independently of GDAL: the .dbf header counts 245 records (as
    # does the .shx: (2,060 - 100) / 8 = 245), and its first record is 20191920, allocation,
    # RHK_BDL_Majors, 19 dwellings.
    assert len(developments) == 245
    assert [d.rlb_id for d in developments] == list(range(1, 246))
    first = developments[0]
    assert (first.id, first.dwelling_category, first.source, first.dwellings) == (
        "20191920",
        "allocation",
        "RHK_BDL_Majors",
        19,
    )
    assert all(isinstance(d.id, str) and d.id for d in developments)


def test_the_small_site_is_the_same_as_shapefile_and_as_geojson() -> None:
    (from_shp,) = assess(SMALL_SHP)
    (from_json,) = assess(SMALL_GEOJSON)
    assert from_shp == from_json
    # As the GeoJSON's one feature states them (id, Dwellings, Dwel_Cat, Name).
    assert (from_shp.id, from_shp.dwellings, from_shp.dwelling_category) == (
        "24/00119/F",
        1,
        "in-system",
    )
    assert from_shp.name == "Old White Horse Station Road East Rudham"
    assert from_shp.boundary.equals_exact(from_json.boundary, 1e-6)
    assert from_shp.boundary.area == pytest.approx(shoelace_area(SMALL_GEOJSON), rel=1e-9)
    # By hand, about the first vertex (582,814.9268, 328,188.8899) the other three lie at
    # (-6.0410, 14.8391), (10.0381, 21.2780), (15.1636, 8.1055); shoelace:
    # (-6.0410 x 21.2780 - 10.0381 x 14.8391) + (10.0381 x 8.1055 - 15.1636 x 21.2780)
    # = -277.497 - 241.287 = -518.784, halved: 259.39 m2 (Defra's own Shape_Area: 259.392).
    assert from_shp.boundary.area == pytest.approx(259.39, abs=0.01)


def test_a_zipped_sample_reads_from_a_path_and_from_bytes(tmp_path: Path) -> None:
    entries: dict[str, bytes | Path] = {
        f"export/{p.name}": p for p in BIG_SHP.parent.iterdir() if p.suffix != ".xml"
    }
    entries["__MACOSX/export/._BnW_cleaned_110925.shp"] = b"resource fork"
    archive = zip_of(tmp_path / "sites.zip", entries)
    from_path = assess(archive)
    from_bytes = validate_features(read_boundary_bytes(archive.read_bytes(), "Sites.ZIP"))
    assert len(from_path) == len(from_bytes) == 245
    assert from_path == from_bytes == assess(BIG_SHP)


def test_upper_case_names_in_a_zip_are_found(tmp_path: Path) -> None:
    entries: dict[str, bytes | Path] = {
        f"SITE{p.suffix.upper()}": p for p in shapefile_parts(SMALL_SHP).values()
    }
    (development,) = assess(zip_of(tmp_path / "upper.zip", entries))
    assert development.id == "24/00119/F"


def test_wgs84_geojson_is_reprojected(tmp_path: Path) -> None:
    (expected,) = assess(SMALL_GEOJSON)
    to_wgs84 = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True)
    ring = [list(to_wgs84.transform(x, y)) for x, y in expected.boundary.exterior.coords]
    geometry = {"type": "Polygon", "coordinates": [ring]}
    for crs in (None, {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}}):
        (development,) = assess(geojson(tmp_path, [(GOOD, geometry)], crs=crs))
        # There and back (PROJ's inverse Helmert is approximate): equal to well under 1 cm.
        assert development.boundary.equals_exact(expected.boundary, 0.01)


def test_geopackages_in_bng_and_wgs84(tmp_path: Path) -> None:
    (expected,) = assess(SMALL_SHP)
    to_wgs84 = Transformer.from_crs("EPSG:27700", "EPSG:4326", always_xy=True)
    in_wgs84 = shapely.transform(
        expected.boundary, lambda xy: np.column_stack(to_wgs84.transform(xy[:, 0], xy[:, 1]))
    )
    fields: dict[str, Sequence[object]] = {
        "id": [20191920.0],
        "name": ["n"],
        "dwelling_category": ["c"],
        "source": [""],
        "dwellings": [3.0],
    }
    bng = write_ogr(tmp_path / "bng.gpkg", [expected.boundary.wkb], fields)
    wgs = write_ogr(tmp_path / "wgs.gpkg", [in_wgs84.wkb], fields, crs="EPSG:4326")
    (a,) = assess(bng)
    (b,) = validate_features(read_boundary_bytes(wgs.read_bytes(), "upload.gpkg"))
    assert (a.id, a.dwellings, a.source) == (b.id, b.dwellings, b.source) == ("20191920", 3, "")
    assert a.boundary.equals_exact(expected.boundary, 1e-6)
    assert b.boundary.equals_exact(expected.boundary, 0.01)


def test_the_one_polygon_layer_of_a_geopackage_is_chosen(tmp_path: Path) -> None:
    path = tmp_path / "layers.gpkg"
    write_ogr(
        path, [Point(600_000, 300_000).wkb], {"id": ["p"]}, layer="points", geometry_type="Point"
    )
    write_ogr(path, [SITE.wkb], legacy_fields(1), layer="sites")
    (development,) = assess(path)
    assert development.id == "S1"


def test_inline_geojson_for_the_worker() -> None:
    bare = square()
    (feature,) = features_from_geojson(bare, LIMITS, default_crs="EPSG:27700")
    assert feature.properties == {}
    assert feature.geometry.equals(SITE)  # type: ignore[attr-defined]
    as_feature = {"type": "Feature", "id": "ref-1", "properties": None, "geometry": bare}
    (feature,) = features_from_geojson({**as_feature, "crs": BNG_NAME}, LIMITS)
    assert feature.properties == {"id": "ref-1"}
    with pytest.raises(InvalidInput) as caught:
        features_from_geojson(["not", "geojson"], LIMITS)
    assert caught.value.codes == ["unreadable_file"]


# ---- file-level problems -------------------------------------------------------------------


def file_code(path: Path, limits: InputLimits = LIMITS) -> str:
    found = codes(path, limits)
    assert len(found) == 1, found
    assert found[0][1] is None
    return found[0][0]


def test_file_not_found_and_unsupported_type(tmp_path: Path) -> None:
    assert file_code(tmp_path / "nothing.geojson") == "file_not_found"
    # A folder is read as a shapefile's folder; this one holds none.
    assert file_code(tmp_path) == "no_boundary_in_folder"
    dxf = tmp_path / "site.dxf"
    dxf.write_text("0\nSECTION")
    assert file_code(dxf) == "unsupported_file_type"
    with pytest.raises(InvalidInput) as caught:
        read_boundary_bytes(b"x", "site.csv")
    assert caught.value.codes == ["unsupported_file_type"]


def test_file_too_large(tmp_path: Path) -> None:
    path = geojson(tmp_path, [(GOOD, square())])
    size = path.stat().st_size
    assert assess(path, InputLimits(max_file_bytes=size))
    assert file_code(path, InputLimits(max_file_bytes=size - 1)) == "file_too_large"
    # A shapefile's size is its .shp, .shx and .dbf together (the .dbf is the larger part).
    shp_only = SMALL_SHP.stat().st_size
    assert file_code(SMALL_SHP, InputLimits(max_file_bytes=shp_only + 1)) == "file_too_large"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bad.geojson", b"{not json"),
        ("empty.json", b""),
        ("list.json", b"[1, 2]"),
        ("kind.geojson", b'{"type": "Topology"}'),
        ("nofeatures.geojson", b'{"type": "FeatureCollection", "features": 3}'),
        ("bad.gpkg", b"garbage" * 100),
    ],
)
def test_unreadable_files(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert file_code(path) == "unreadable_file"


def test_a_file_named_zip_that_is_not_one_is_an_invalid_zip(tmp_path: Path) -> None:
    path = tmp_path / "bad.zip"
    path.write_bytes(b"PK garbage")
    assert file_code(path) == "invalid_zip"


def test_a_corrupt_shapefile_is_unreadable(tmp_path: Path) -> None:
    for suffix, part in shapefile_parts(SMALL_SHP).items():
        shutil.copy(part, tmp_path / f"site{suffix}")
    (tmp_path / "site.shp").write_bytes(b"\0" * 200)
    assert file_code(tmp_path / "site.shp") == "unreadable_file"


def test_features_that_are_not_features_are_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "odd.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": [{"type": "Point"}, 5]}))
    assert codes(path) == [("unreadable_file", 1), ("unreadable_file", 2)]


def test_empty_files(tmp_path: Path) -> None:
    assert file_code(geojson(tmp_path, [])) == "empty_file"
    empty_shp = write_ogr(tmp_path / "empty.shp", [], legacy_fields(0))
    assert file_code(empty_shp) == "empty_file"


def test_too_many_features(tmp_path: Path) -> None:
    assert file_code(BIG_SHP, InputLimits(max_features=244)) == "too_many_features"
    assert len(assess(BIG_SHP, InputLimits(max_features=245))) == 245
    two = geojson(tmp_path, [(GOOD, square()), (GOOD, square())])
    assert file_code(two, InputLimits(max_features=1)) == "too_many_features"


def test_missing_crs(tmp_path: Path) -> None:
    no_prj = write_ogr(tmp_path / "noprj.shp", [SITE.wkb], legacy_fields(1), crs=None)
    assert not no_prj.with_suffix(".prj").exists()
    assert file_code(no_prj) == "missing_crs"
    undefined = write_ogr(tmp_path / "undefined.gpkg", [SITE.wkb], legacy_fields(1), crs=None)
    assert file_code(undefined) == "missing_crs"
    null_crs = tmp_path / "null.geojson"
    feature = {"type": "Feature", "crs": None, "properties": GOOD, "geometry": square()}
    null_crs.write_text(json.dumps(feature))
    assert file_code(null_crs) == "missing_crs"


@pytest.mark.parametrize(
    "crs",
    [
        {"type": "name", "properties": {"name": "EPSG::99999"}},
        {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::99999"}},
        {"type": "name", "properties": {"name": "EPSG:3857"}},
        {"type": "name", "properties": {"name": "not a crs at all"}},
        {"type": "EPSG", "properties": {"code": 3857}},
        {"type": "link", "properties": {"href": "http://example.com/crs"}},
        "EPSG:27700",
    ],
)
def test_unsupported_crs_is_refused_not_guessed(tmp_path: Path, crs: object) -> None:
    assert file_code(geojson(tmp_path, [(GOOD, square())], crs=crs)) == "unsupported_crs"


def test_unsupported_crs_in_a_shapefile(tmp_path: Path) -> None:
    web_mercator = write_ogr(tmp_path / "merc.shp", [SITE.wkb], legacy_fields(1), crs="EPSG:3857")
    assert file_code(web_mercator) == "unsupported_crs"


def test_older_geojson_crs_forms_are_understood(tmp_path: Path) -> None:
    for crs in (
        {"type": "EPSG", "properties": {"code": 27700}},
        {"type": "name", "properties": {"name": "EPSG:27700"}},
        {"type": "name", "properties": {"name": "http://www.opengis.net/def/crs/EPSG/0/27700"}},
    ):
        assert assess(geojson(tmp_path, [(GOOD, square())], crs=crs))


def test_missing_columns_one_problem_each(tmp_path: Path) -> None:
    fields = {"id": ["a"], "Name": ["n"], "Source": ["s"]}
    path = write_ogr(tmp_path / "partial.shp", [SITE.wkb], fields)
    with pytest.raises(InvalidInput) as caught:
        assess(path)
    assert [(p.code, p.field) for p in caught.value.problems] == [("missing_column", "dwellings")]


def test_a_bare_shapefile_needs_its_sidecars(tmp_path: Path) -> None:
    for suffix in (".shx", ".dbf"):
        for part_suffix, part in shapefile_parts(SMALL_SHP).items():
            if part_suffix != suffix:
                shutil.copy(part, tmp_path / f"site{part_suffix}")
        assert file_code(tmp_path / "site.shp") == "missing_shapefile_parts"
        for leftover in tmp_path.glob("site.*"):
            leftover.unlink()
    with pytest.raises(InvalidInput) as caught:
        read_boundary_bytes(SMALL_SHP.read_bytes(), "site.shp")
    assert caught.value.codes == ["missing_shapefile_parts"]


# ---- zips ------------------------------------------------------------------------------------


def symlink_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        link = zipfile.ZipInfo("site.geojson")
        link.create_system = 3
        link.external_attr = (0o120777) << 16
        archive.writestr(link, "/etc/passwd")
    return path


@pytest.mark.parametrize(
    "name",
    [
        "../site.geojson",
        "a/../../site.geojson",
        "/tmp/site.geojson",
        "C:/site.geojson",
        "a\\..\\site.geojson",
    ],
)
def test_zip_unsafe_paths_refuse_the_whole_zip(tmp_path: Path, name: str) -> None:
    body = json.dumps({"type": "Feature", "properties": GOOD, "geometry": square()}).encode()
    archive = zip_of(tmp_path / "evil.zip", {name: body, "readme.txt": b"hi"})
    assert file_code(archive) == "zip_unsafe_path"
    assert not (tmp_path.parent / "site.geojson").exists()


def test_zip_symlinks_are_unsafe(tmp_path: Path) -> None:
    assert file_code(symlink_zip(tmp_path / "link.zip")) == "zip_unsafe_path"


def test_zip_bombs_are_refused_before_extraction(tmp_path: Path) -> None:
    feature = {"type": "Feature", "crs": BNG_NAME, "properties": GOOD, "geometry": square()}
    body = json.dumps(feature).encode()
    padded = body + b" " * 1_000_000  # deflates to a few kB
    archive = zip_of(tmp_path / "bomb.zip", {"site.geojson": padded})
    assert archive.stat().st_size < 10_000
    assert assess(archive, InputLimits(max_decompressed_bytes=len(padded)))
    # One entry alone over the budget is named as such; two within it but over together are
    # the zip's total.
    one_over = InputLimits(max_decompressed_bytes=len(padded) - 1)
    assert file_code(archive, one_over) == "zip_entry_too_large"
    twice = zip_of(tmp_path / "twice.zip", {"site.geojson": padded, "notes.txt": padded})
    within_each = InputLimits(max_decompressed_bytes=len(padded) + 1)
    assert file_code(twice, within_each) == "zip_total_too_large"


def test_too_many_zip_entries(tmp_path: Path) -> None:
    entries: dict[str, bytes | Path] = {f"note{i}.txt": b"x" for i in range(5)}
    entries["site.geojson"] = SMALL_GEOJSON
    archive = zip_of(tmp_path / "many.zip", entries)
    assert assess(archive, InputLimits(max_zip_entries=6))
    assert file_code(archive, InputLimits(max_zip_entries=5)) == "zip_too_many_files"


def test_a_zip_that_lies_about_its_sizes_is_refused(tmp_path: Path) -> None:
    data = bytearray(zip_of(tmp_path / "a.zip", {"site.geojson": SMALL_GEOJSON}).read_bytes())
    # Declare 100 bytes in the local header and the central directory; the entry is larger.
    struct.pack_into("<I", data, 22, 100)
    struct.pack_into("<I", data, data.find(b"PK\x01\x02") + 24, 100)
    (tmp_path / "liar.zip").write_bytes(bytes(data))
    assert file_code(tmp_path / "liar.zip") == "invalid_zip"


def test_extraction_counts_the_bytes_it_writes(tmp_path: Path) -> None:
    archive = zipfile.ZipFile(zip_of(tmp_path / "a.zip", {"site.geojson": b"x" * 5000}))
    with archive:
        member = archive.infolist()[0]
        assert _copy(archive, member, tmp_path / "ok", 5000) == 0
        with pytest.raises(InvalidInput) as caught:
            _copy(archive, member, tmp_path / "over", 4999)
    assert caught.value.codes == ["zip_total_too_large"]


def test_zip_shapefile_without_sidecars(tmp_path: Path) -> None:
    parts = shapefile_parts(SMALL_SHP)
    archive = zip_of(
        tmp_path / "no_dbf.zip", {"site.shp": parts[".shp"], "site.shx": parts[".shx"]}
    )
    assert file_code(archive) == "zip_missing_shapefile_parts"
    # A .dbf of another name, or in another folder, is not this shapefile's.
    elsewhere = {
        "a/site.shp": parts[".shp"],
        "a/site.shx": parts[".shx"],
        "b/site.dbf": parts[".dbf"],
    }
    assert file_code(zip_of(tmp_path / "elsewhere.zip", elsewhere)) == "zip_missing_shapefile_parts"


def test_zip_without_a_boundary_file(tmp_path: Path) -> None:
    archive = zip_of(tmp_path / "docs.zip", {"readme.txt": b"hi"})
    assert file_code(archive) == "zip_no_boundary_file"


@pytest.mark.parametrize("inner", ["inner.zip", "maps/site.KMZ"])
def test_a_zip_inside_a_zip_is_refused(tmp_path: Path, inner: str) -> None:
    archive = zip_of(tmp_path / "docs.zip", {"site.geojson": SMALL_GEOJSON, inner: b"PK"})
    assert file_code(archive) == "zip_nested_zip"


@pytest.mark.parametrize(
    "name",
    ['site\n{"forged": 1}.geojson', "a\x07.geojson", "x" * 256 + ".geojson", "\u202egpj.geojson"],
)
def test_names_with_control_characters_or_too_long_are_unsafe(tmp_path: Path, name: str) -> None:
    archive = zip_of(tmp_path / "names.zip", {name: SMALL_GEOJSON})
    assert file_code(archive) == "unsafe_filename"
    with pytest.raises(InvalidInput) as caught:
        read_boundary_bytes(SMALL_GEOJSON.read_bytes(), name)
    assert caught.value.codes == ["unsafe_filename"]


def test_names_in_any_letters_with_spaces_and_punctuation_are_fine(tmp_path: Path) -> None:
    # Defra refuses all but letters, digits, spaces and ._-(); nrf keeps reading these.
    name = "Hall’s Farm & Co — phase 2 (draft) #3.geojson"
    assert len(assess(zip_of(tmp_path / "fine.zip", {name: SMALL_GEOJSON}))) == 1
    assert len(read_boundary_bytes(SMALL_GEOJSON.read_bytes(), name)) == 1


def test_zip_with_two_boundary_files_is_ambiguous(tmp_path: Path) -> None:
    entries: dict[str, bytes | Path] = {"a.geojson": SMALL_GEOJSON, "b/c.geojson": SMALL_GEOJSON}
    assert file_code(zip_of(tmp_path / "two.zip", entries)) == "zip_ambiguous"
    parts = shapefile_parts(SMALL_SHP)
    mixed = {f"site{s}": p for s, p in parts.items()} | {"site.gpkg": b"x"}
    assert file_code(zip_of(tmp_path / "mixed.zip", mixed)) == "zip_ambiguous"


def test_zip_without_prj_is_missing_crs(tmp_path: Path) -> None:
    parts = shapefile_parts(SMALL_SHP)
    entries = {f"site{s}": p for s, p in parts.items() if s != ".prj"}
    assert file_code(zip_of(tmp_path / "noprj.zip", entries)) == "missing_crs"


def test_geopackage_with_several_polygon_layers_is_ambiguous(tmp_path: Path) -> None:
    path = tmp_path / "two.gpkg"
    write_ogr(path, [SITE.wkb], legacy_fields(1), layer="first")
    write_ogr(path, [SITE.wkb], legacy_fields(1), layer="second")
    assert file_code(path) == "ambiguous_layer"


# ---- feature-level problems, all reported at once ---------------------------------------------


def _ring(points: list[list[float]]) -> dict[str, object]:
    return {"type": "Polygon", "coordinates": [points]}


def test_every_feature_problem_of_a_geojson_is_reported(tmp_path: Path) -> None:
    x, y = 600_000, 300_000
    rows: list[tuple[dict[str, object], object]] = [
        (GOOD, square()),  # 1: fine
        ({**GOOD, "id": None}, None),  # 2
        ({**GOOD, "dwellings": -2}, {"type": "Point", "coordinates": [x, y]}),  # 3
        (GOOD, {"type": "Polygon", "coordinates": []}),  # 4
        (GOOD, _ring([[x, y], [math.nan, y], [x, y + 10], [x, y]])),  # 5
        (GOOD, _ring([[x, y], [x + 10, y], [x + 10, y + 10], [x, y + 10]])),  # 6: not closed
        (GOOD, _ring([[x, y], [x + 10, y], [x, y]])),  # 7: too few positions
        (GOOD, _ring([[x, y], [x + 10, y + 10], [x + 10, y], [x, y + 10], [x, y]])),  # 8
        (GOOD, square(1.0, 52.0, 0.01)),  # 9: degrees declared as BNG
        (GOOD, square(800_000, 300_000)),  # 10
        (GOOD, square(side=1_001)),  # 11: 100.2 ha
        (GOOD, _ring([[x, y], [x + 5, y], [x + 10, y], [x, y]])),  # 12: zero area
        ({**GOOD, "dwelling_category": " ", "dwellings": "19.5"}, square()),  # 13
        (GOOD, {"type": "MultiPolygon", "coordinates": [[[[x, y], ["a", y]]]]}),  # 14
        (GOOD, {"type": "GeometryCollection", "geometries": []}),  # 15
    ]
    path = geojson(tmp_path, rows)
    assert codes(path, InputLimits(max_site_area_ha=100)) == [
        ("missing_value", 2),
        ("null_geometry", 2),
        ("invalid_dwellings", 3),
        ("unsupported_geometry_type", 3),
        ("empty_geometry", 4),
        ("non_finite_coordinates", 5),
        ("unclosed_ring", 6),
        ("invalid_geometry", 7),
        ("self_intersecting_geometry", 8),
        ("coordinates_look_like_degrees", 9),
        ("outside_great_britain", 10),
        ("site_too_large", 11),
        ("zero_area", 12),
        ("missing_value", 13),
        ("invalid_dwellings", 13),
        ("invalid_geometry", 14),
        ("unsupported_geometry_type", 15),
    ]


def test_messages_name_the_feature_and_field(tmp_path: Path) -> None:
    path = geojson(
        tmp_path, [(GOOD, square()), (GOOD, square()), ({**GOOD, "dwellings": -2}, square())]
    )
    with pytest.raises(InvalidInput) as caught:
        assess(path)
    (problem,) = caught.value.problems
    assert problem.message == "feature 3: dwellings is -2; it must be a whole number of 0 or more"
    assert problem.field == "dwellings"


def test_bng_coordinates_without_a_crs_look_like_metres(tmp_path: Path) -> None:
    path = geojson(tmp_path, [(GOOD, square())], crs=None)
    assert codes(path) == [("coordinates_look_like_metres", 1)]


def test_wgs84_coordinates_that_are_not_metres_either_are_out_of_range(tmp_path: Path) -> None:
    # x = 2,000,000 is neither a longitude (|x| <= 180) nor inside BNG's 0-700,000.
    path = geojson(tmp_path, [(GOOD, square(2_000_000, 300_000))], crs=None)
    assert codes(path) == [("coordinates_out_of_range", 1)]


def test_too_many_vertices(tmp_path: Path) -> None:
    path = geojson(tmp_path, [(GOOD, square()), (GOOD, square())])
    assert codes(path, InputLimits(max_vertices_per_feature=4)) == [
        ("too_many_vertices", 1),
        ("too_many_vertices", 2),
    ]
    assert codes(path, InputLimits(max_total_vertices=9)) == [("too_many_vertices", None)]


def _wkb(points: list[tuple[float, float]]) -> bytes:
    return struct.pack("<BIII", 1, 3, 1, len(points)) + b"".join(
        struct.pack("<dd", *p) for p in points
    )


def test_shapefile_feature_problems(tmp_path: Path) -> None:
    x, y = 600_000.0, 300_000.0
    unclosed = _wkb([(x, y), (x + 10, y), (x + 10, y + 10), (x, y + 10)])
    bowtie = _wkb([(x, y), (x + 10, y + 10), (x + 10, y), (x, y + 10), (x, y)])
    fields = legacy_fields(4, Dwellings=[10, -1, 10, 10], id=["a", "b", "", "d"])
    path = write_ogr(tmp_path / "bad.shp", [SITE.wkb, unclosed, bowtie, None], fields)
    assert codes(path) == [
        ("invalid_dwellings", 2),
        ("unclosed_ring", 2),
        ("missing_value", 3),
        ("self_intersecting_geometry", 3),
        ("null_geometry", 4),
    ]


def test_geopackage_nan_coordinates_and_null_values(tmp_path: Path) -> None:
    x, y = 600_000.0, 300_000.0
    with_nan = _wkb([(x, y), (x + 10, y), (math.nan, y + 10), (x, y + 10), (x, y)])
    path = tmp_path / "nan.gpkg"
    pyogrio.raw.write(
        path,
        np.array([with_nan, SITE.wkb], dtype=object),
        [np.array(["a", "b"], dtype=object), np.array(["c", "c"], dtype=object), np.array([1, 0])],
        fields=["id", "dwelling_category", "dwellings"],
        field_mask=[None, None, np.array([False, True])],
        geometry_type="Polygon",
        crs="EPSG:27700",
        driver="GPKG",
    )
    with pytest.raises(InvalidInput) as caught:
        assess(path)
    # name and source are absent: blank by default, not a problem.
    assert [(p.code, p.feature, p.field) for p in caught.value.problems] == [
        ("non_finite_coordinates", 1, "geometry"),
        ("missing_value", 2, "dwellings"),
    ]


def test_raw_features_carry_their_declared_crs(tmp_path: Path) -> None:
    (bng,) = read_boundary_file(SMALL_GEOJSON)
    triangle = _ring([[1.0, 52.0], [1.001, 52.0], [1.001, 52.001], [1.0, 52.0]])
    feature = {"type": "Feature", "properties": {}, "geometry": triangle}
    (wgs,) = read_boundary_bytes(json.dumps(feature).encode(), "x.json")
    assert isinstance(bng, RawFeature)
    assert (bng.crs, wgs.crs) == ("EPSG:27700", "EPSG:4326")
    # Reprojected: 1 deg E is 3 deg east of BNG's 2 deg W meridian, ~3 x 68.5 km at 52 deg N,
    # so easting ~400,000 + 205,500; left in degrees it would be 1.0.
    assert wgs.geometry.bounds[0] > 600_000  # type: ignore[attr-defined]


def test_nothing_is_extracted_outside_the_temp_dir(tmp_path: Path, private_tempdir: Path) -> None:
    entries: dict[str, bytes | Path] = {p.name: p for p in shapefile_parts(SMALL_SHP).values()}
    archive = zip_of(tmp_path / "ok.zip", entries)
    before = sorted(tmp_path.iterdir())
    read_boundary_bytes(archive.read_bytes(), "ok.zip")
    assert sorted(tmp_path.iterdir()) == before
    assert list(private_tempdir.iterdir()) == []


def test_bytes_and_path_readers_agree(tmp_path: Path) -> None:
    data = io.BytesIO(SMALL_GEOJSON.read_bytes()).getvalue()
    assert validate_features(read_boundary_bytes(data, "a.geojson")) == assess(SMALL_GEOJSON)


# ---- anything a client might send inline: only InvalidInput may come out -----------------------

JSON_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
)
JSON_VALUE = st.recursive(
    JSON_SCALAR,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=30,
)
NUMBER = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**400), 10**400))
POSITIONS = st.lists(st.lists(NUMBER, min_size=0, max_size=3), max_size=6)
GEOMETRY_LIKE = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["Polygon", "MultiPolygon", "Point", "Nonsense"]),
        "coordinates": st.one_of(
            JSON_VALUE,
            st.lists(POSITIONS, max_size=2),
            st.lists(st.lists(POSITIONS, max_size=2), max_size=2),
        ),
    }
)
CRS_LIKE = st.one_of(
    st.none(),
    st.sampled_from(["EPSG:27700", "EPSG:4326", "EPSG::99999", "OGC:CRS84", "nonsense"]).map(
        lambda name: {"type": "name", "properties": {"name": name}}
    ),
    JSON_VALUE,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "type": st.just("Feature"),
                "properties": st.one_of(
                    st.none(),
                    st.dictionaries(
                        st.sampled_from(["id", "Name", "Dwellings", "dwellings"]), JSON_SCALAR
                    ),
                ),
                "geometry": st.one_of(st.none(), GEOMETRY_LIKE, JSON_VALUE),
            }
        ),
        max_size=3,
    ),
    CRS_LIKE,
)
def test_random_geojson_raises_nothing_but_invalid_input(
    features: list[dict[str, object]], crs: object
) -> None:
    document: dict[str, object] = {"type": "FeatureCollection", "features": features}
    if crs is not None:
        document["crs"] = crs
    try:
        validate_features(features_from_geojson(document, LIMITS), LIMITS)
    except InvalidInput as error:
        assert error.problems


def test_a_zip_may_hold_a_geopackage_or_a_json_file(tmp_path: Path) -> None:
    gpkg = write_ogr(tmp_path / "site.gpkg", [SITE.wkb], legacy_fields(1))
    (from_gpkg,) = assess(zip_of(tmp_path / "gpkg.zip", {"out/Site.GPKG": gpkg}))
    (from_json,) = assess(zip_of(tmp_path / "json.zip", {"site.json": SMALL_GEOJSON}))
    assert (from_gpkg.id, from_json.id) == ("S1", "24/00119/F")
