"""Broken deliveries: each is cleaned and listed, or refused with a code, a place and no output.

Every case starts from the small delivery of ``support.delivery``, breaks it one way
(``support.breakages``), puts an older bundle at the output path, and runs `nrf bundle build`.
A refusal must exit with the documented status, report the stable finding code with the file,
layer, row or column it is about (in the report and on stderr), and leave nothing behind: the
older bundle unchanged, no staging file, no digest or validation sidecar. A cleaning must build
the bundle and list what it did, where.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import zipfile
from contextlib import closing
from pathlib import Path
from typing import Any

import geopandas as gpd
import pyogrio
import pytest
import shapely
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Polygon, box

from nrf.adapters.boundary_data.geopackage_blob import decode_blobs
from nrf.entrypoints.cli import main
from support.breakages import (
    HTML,
    Breakage,
    coefficients_sql,
    cut_short,
    gpkg_blob,
    lookups_sql,
    polygon_z,
    rewrite_shapefile,
    set_cell,
    sidecar,
)
from support.delivery import (
    COEFF_PATH,
    LOOKUPS_PATH,
    SHP,
    X0,
    Y0,
    FixtureData,
    build_command,
    write_delivery,
)

OLD = b"an older bundle that a failed build must leave alone"
QC_FAILED, UNREADABLE, NOT_WRITTEN = 5, 6, 7


def run_build(
    tmp_path: Path, breakage: Breakage, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str]:
    data = FixtureData()
    if breakage.before:
        breakage.before(data)
    root = tmp_path / "iat_input"
    paths = write_delivery(root, data)
    if breakage.after:
        breakage.after(root, paths)
    out = tmp_path / "out" / "out.gpkg"
    out.parent.mkdir(exist_ok=True)
    out.write_bytes(OLD)
    capsys.readouterr()
    code = main([*build_command(root, paths, out, "2"), *extra])
    return code, capsys.readouterr().err


def findings(tmp_path: Path) -> list[dict[str, Any]]:
    doc: dict[str, Any] = json.loads((tmp_path / "out" / "out.qc.json").read_text())
    found: list[dict[str, Any]] = doc["findings"]
    return found


def assert_nothing_written(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    assert (folder / "out.gpkg").read_bytes() == OLD
    left = {p.name for p in folder.iterdir()} - {"out.gpkg", "out.qc.json", "out.qc.md"}
    assert left == set(), left  # no staging file, no .sha256 or .validated.json sidecar


def _after(change: Any) -> Breakage:
    return Breakage(after=change)


def _before(change: Any) -> Breakage:
    return Breakage(before=change)


def _unlink(path_of: Any) -> Breakage:
    return _after(lambda root, paths: path_of(root, paths).unlink())


def _write(path_of: Any, data: bytes) -> Breakage:
    return _after(lambda root, paths: path_of(root, paths).write_bytes(data))


def _cut(path_of: Any, keep: float = 0.5) -> Breakage:
    return _after(lambda root, paths: cut_short(path_of(root, paths), keep))


def _shp(key: str) -> Any:
    return lambda root, _: root / SHP[key]


def _coeff(root: Path, _: Any) -> Path:
    return root / COEFF_PATH


def _lookups(root: Path, _: Any) -> Path:
    return root / LOOKUPS_PATH


def _levy(_: Path, paths: dict[str, Path]) -> Path:
    return paths["charges"]


def _levy_text(change: Any) -> Breakage:
    return _after(
        lambda _, paths: paths["charges"].write_text(change(paths["charges"].read_text()))
    )


def _folder_for(path_of: Any) -> Breakage:
    def swap(root: Path, paths: dict[str, Path]) -> None:
        path = path_of(root, paths)
        path.unlink()
        path.mkdir()

    return _after(swap)


def _cell(cromeid: str, position: int, value: object) -> Breakage:
    return _before(lambda d: set_cell(d, cromeid, position, value))


def _permit(row: tuple[object, ...]) -> Breakage:
    return _before(lambda d: d.permits.__setitem__(0, row))


def _levy_row(text: str) -> Breakage:
    return _before(lambda d: d.charges.__setitem__(0, text))


CHARGE = "1,Yare EDP,2026-04-01,2026-04-01,2027-03-31,"  # the first charge row, less its charge


def _blob(cromeid: str, blob: object) -> Breakage:
    sql = 'UPDATE "NMSCoefficientLayer" SET geom = ? WHERE cromeid = ?'
    return _after(lambda root, _: coefficients_sql(root, sql, blob, cromeid))


def _drop_column(key: str, column: str) -> Breakage:
    return _after(lambda root, _: rewrite_shapefile(root, key, lambda f: f.drop(columns=[column])))


def _sql(sql: str) -> Breakage:
    return _after(lambda root, _: lookups_sql(root, sql))


def _coeff_update(sql: str) -> Breakage:
    return _after(lambda root, _: coefficients_sql(root, sql))


def _lonlat_lpa(d: FixtureData) -> None:
    d.lpa = [(box(1.0, 52.0, 1.5, 52.5), "Alpha District"), (box(1.5, 52.0, 2.0, 52.5), "Beta")]


def _other_crs(d: FixtureData) -> None:
    d.crs["wfd"] = "EPSG:32631"


def _bowtie(d: FixtureData) -> None:
    ring = [(X0, Y0), (X0 + 1500, Y0 + 2000), (X0 + 1500, Y0), (X0, Y0 + 2000)]
    d.nn[0] = (Polygon(ring), "Alpha SAC", 1)


def _far_polygon(geometry: object) -> Breakage:
    row = ("CRX", "Arable", "Alpha SAC", "Upper Yare", "5", 0.5, 10.0, 0.5)
    return _before(lambda d: d.coefficients.append((geometry, *row)))


def _unclosed_ring() -> bytes:
    """WKB of a polygon whose one ring has three points and does not close (GEOS refuses it)."""
    points = [(X0 + 100, Y0 + 100), (X0 + 200, Y0 + 100), (X0 + 200, Y0 + 200)]
    body = b"".join(struct.pack("<dd", x, y) for x, y in points)
    return gpkg_blob(struct.pack("<BII", 1, 3, 1) + struct.pack("<I", len(points)) + body)


def _m_blob() -> bytes:
    ring = "600100 300100 1, 600200 300100 1, 600200 300200 1, 600100 300200 1, 600100 300100 1"
    polygon = shapely.from_wkt(f"POLYGON M (({ring}))")
    return gpkg_blob(shapely.to_wkb(polygon, flavor="iso", byte_order=1))


def _cp1252_lpa() -> Breakage:
    def save_as_cp1252(root: Path, _: Any) -> None:
        path = root / SHP["lpa"]
        frame = gpd.read_file(path)
        frame.loc[0, "NAME"] = "Ynys M\u00f4n \u2013 Caf\u00e9"  # an en dash: 0x96 in cp1252
        for suffix in (".shp", ".shx", ".dbf", ".prj", ".cpg"):
            path.with_suffix(suffix).unlink(missing_ok=True)
        pyogrio.write_dataframe(frame, path, encoding="cp1252")
        path.with_suffix(".cpg").unlink()

    return _after(save_as_cp1252)


def _nan_in_shp(path: Path) -> None:
    """Overwrite the first point of the first polygon record with NaN (GDAL reads it as is).

    A polygon record starts after the 100-byte file header and the 8-byte record header:
    shape type (4), box (32), part and point counts (8), part offsets (4 per part, one part
    here), then the points: 100 + 8 + 4 + 32 + 8 + 4 = byte 156."""
    data = bytearray(path.read_bytes())
    data[156:164] = struct.pack("<d", float("nan"))
    path.write_bytes(bytes(data))


def _fifo(path: Path) -> None:
    """Replace ``path`` by a named pipe: reading it would wait for a writer for ever."""
    path.unlink()
    os.mkfifo(path)


def _dbf_records(path: Path, count: int) -> None:
    """Say ``count`` records in the .dbf header (byte 4, little-endian), as a cut export does."""
    dbf = path.with_suffix(".dbf")
    data = bytearray(dbf.read_bytes())
    data[4:8] = struct.pack("<I", count)
    dbf.write_bytes(bytes(data))


# The LPA layer as a zip (GDAL reads zipped shapefiles), with an HTML page in the zip's place.
_LPA_ZIP = '[sources.lpa_boundaries]\npath = "nutrients/LPA.zip"\n'


def _html_zip(root: Path, _: Any) -> None:
    (root / "nutrients" / "LPA.zip").write_bytes(HTML)


def _header(old: str, new: str) -> Breakage:
    return _levy_text(lambda text: text.replace(old, new, 1))


# (id, breakage, exit status, finding code, the place the finding must name)
REFUSED: list[tuple[str, Breakage, int, str, str]] = [
    # files missing, emptied, cut short, or not what their name says
    ("nn_shp_missing", _unlink(_shp("nn")), UNREADABLE, "source_missing", "NN_Catchments_03_2024"),
    ("shx_missing", _unlink(sidecar("lpa", ".shx")), UNREADABLE, "source_missing", "National.shx"),
    ("dbf_missing", _unlink(sidecar("lpa", ".dbf")), UNREADABLE, "source_missing", "National.dbf"),
    ("prj_missing", _unlink(sidecar("lpa", ".prj")), UNREADABLE, "source_crs", "LPA_National"),
    ("coeff_missing", _unlink(_coeff), UNREADABLE, "source_missing", "NMSCoefficientLayerTEST"),
    ("lookups_missing", _unlink(_lookups), UNREADABLE, "source_missing", "Interim_coeffs"),
    ("levy_missing", _unlink(_levy), UNREADABLE, "source_missing", "levy-charges.csv"),
    ("shp_zero_bytes", _write(_shp("wwtw"), b""), UNREADABLE, "source_corrupt", "WwTW_all"),
    ("shx_zero_bytes", _write(sidecar("wwtw", ".shx"), b""), UNREADABLE, "source_corrupt", "WwTW"),
    ("dbf_empty", _write(sidecar("wwtw", ".dbf"), b""), UNREADABLE, "source_corrupt", "res.dbf"),
    ("dbf_is_html", _write(sidecar("nn", ".dbf"), HTML), UNREADABLE, "source_corrupt", "2024.dbf"),
    ("dbf_cut_short", _cut(sidecar("wwtw", ".dbf")), UNREADABLE, "source_corrupt", "WwTW_all"),
    ("shp_cut_short", _cut(_shp("wwtw")), QC_FAILED, "geometry_missing", "source fid 2"),
    ("gpkg_zero_bytes", _write(_coeff, b""), UNREADABLE, "source_corrupt", "NMSCoefficient"),
    ("gpkg_cut_short", _cut(_coeff), UNREADABLE, "source_corrupt", "NMSCoefficientLayerTEST"),
    ("sqlite_zero_bytes", _write(_lookups, b""), UNREADABLE, "source_missing", "WwTw_lookup"),
    ("sqlite_cut_short", _cut(_lookups), UNREADABLE, "source_corrupt", "Interim_coeffs"),
    ("gpkg_is_html", _write(_coeff, HTML), UNREADABLE, "source_corrupt", "NMSCoefficient"),
    ("sqlite_is_html", _write(_lookups, HTML), UNREADABLE, "source_corrupt", "Interim_coeffs"),
    ("shp_is_html", _write(_shp("nn"), HTML), UNREADABLE, "source_corrupt", "NN_Catchments"),
    ("prj_is_html", _write(sidecar("nn", ".prj"), HTML), UNREADABLE, "source_corrupt", "2024.prj"),
    ("levy_is_html", _write(_levy, HTML), UNREADABLE, "source_corrupt", "an HTML page"),
    (
        "levy_is_a_fifo",
        _after(lambda _, paths: _fifo(paths["charges"])),
        UNREADABLE,
        "source_corrupt",
        "not a regular file",
    ),
    (
        "manifest_is_a_fifo",
        _after(lambda _, paths: _fifo(paths["manifest"])),
        UNREADABLE,
        "bad_manifest",
        "not a regular file",
    ),
    (
        "levy_is_xlsx",
        _write(_levy, b"PK\x03\x04" + bytes(60)),
        UNREADABLE,
        "source_corrupt",
        "levy-charges.csv",
    ),
    (
        "lpa_is_points",
        _after(
            lambda root, _: rewrite_shapefile(
                root, "lpa", lambda f: f.set_geometry(f.geometry.centroid)
            )
        ),
        QC_FAILED,
        "geometry_type",
        "source fid 0",
    ),
    (
        "dbf_fewer_records",
        _after(lambda root, _: _dbf_records(root / SHP["wwtw"], 3)),
        UNREADABLE,
        "source_corrupt",
        "holds 3 records and WwTW_all_features.shx 5 shapes",
    ),
    (
        "shp_nan_coordinate",
        _after(lambda root, _: _nan_in_shp(root / SHP["wfd"])),
        QC_FAILED,
        "geometry_invalid",
        "source fid 0",
    ),
    (
        "zip_is_html",
        Breakage(lambda d: setattr(d, "manifest", _LPA_ZIP), _html_zip),
        UNREADABLE,
        "source_corrupt",
        "LPA.zip",
    ),
    ("gpkg_is_a_folder", _folder_for(_coeff), UNREADABLE, "source_corrupt", "NMSCoefficient"),
    ("sqlite_is_a_folder", _folder_for(_lookups), UNREADABLE, "source_corrupt", "Interim"),
    # coordinate reference systems: nothing is reprojected
    ("crs_4326", _before(lambda d: d.crs.update(lpa="EPSG:4326")), UNREADABLE, "source_crs", "LPA"),
    ("crs_utm", _before(_other_crs), UNREADABLE, "source_crs", "WFD_Surface_Water"),
    ("lonlat_numbers", _before(_lonlat_lpa), QC_FAILED, "lonlat_coordinates", "source fid 0"),
    (
        "lonlat_cell",
        _cell("CR0101", 0, box(1.30, 52.60, 1.31, 52.61)),
        QC_FAILED,
        "lonlat_coordinates",
        "CR0101",
    ),
    (
        "gpkg_srs_4326",
        _coeff_update("UPDATE gpkg_geometry_columns SET srs_id = 4326"),
        UNREADABLE,
        "source_crs",
        "NMSCoefficientLayerTEST",
    ),
    (
        "gpkg_srs_undefined",
        _coeff_update("UPDATE gpkg_geometry_columns SET srs_id = -1"),
        UNREADABLE,
        "source_crs",
        "NMSCoefficientLayerTEST",
    ),
    # geometries
    (
        "null_geometry",
        _before(lambda d: d.nn.__setitem__(0, (None, "Alpha SAC", 1))),
        QC_FAILED,
        "geometry_missing",
        "source fid 0",
    ),
    ("empty_geometry", _cell("CR0101", 0, Polygon()), QC_FAILED, "geometry_missing", "CR0101"),
    (
        "collection",
        _cell("CR0101", 0, GeometryCollection([box(X0, Y0, X0 + 1, Y0 + 1)])),
        QC_FAILED,
        "geometry_type",
        "CR0101",
    ),
    ("bowtie", _before(_bowtie), QC_FAILED, "geometry_invalid", "source fid 0"),
    (
        "line",
        _cell("CR0101", 0, LineString([(X0, Y0), (X0 + 9, Y0 + 9)])),
        QC_FAILED,
        "geometry_type",
        "CR0101",
    ),
    ("unclosed_ring", _blob("CR0101", _unclosed_ring()), QC_FAILED, "geometry_invalid", "CR0101"),
    (
        "garbage_blob",
        _blob("CR0101", b"GP\x00\x01garbage"),
        QC_FAILED,
        "geometry_invalid",
        "CR0101",
    ),
    (
        "text_blob",
        _blob("CR0101", "POLYGON((0 0,1 0,1 1,0 0))"),
        QC_FAILED,
        "geometry_invalid",
        "CR0101",
    ),
    (
        "nan_coordinate",
        _cell(
            "CR0101",
            0,
            Polygon([(X0 + 100, Y0 + 100), (float("nan"), Y0 + 100), (X0 + 200, Y0 + 200)]),
        ),
        QC_FAILED,
        "geometry_invalid",
        "CR0101",
    ),
    (
        "coordinate_1e300",
        _far_polygon(Polygon([(1e300, 1e300), (2e300, 1e300), (2e300, 2e300)])),
        QC_FAILED,
        "outside_gb",
        "CRX",
    ),
    (
        "far_outside_gb",
        _far_polygon(box(9e6, 9e6, 9e6 + 100, 9e6 + 100)),
        QC_FAILED,
        "outside_gb",
        "CRX",
    ),
    # attributes
    ("column_missing", _drop_column("nn", "OID"), UNREADABLE, "source_missing", "OID"),
    (
        "column_renamed",
        _after(
            lambda root, _: rewrite_shapefile(
                root, "nn", lambda f: f.rename(columns={"OID": "OBJECTID"})
            )
        ),
        UNREADABLE,
        "source_missing",
        "OID",
    ),
    (
        "permit_column_renamed",
        _sql("ALTER TABLE WwTw_lookup RENAME COLUMN Nitrogen_2025_2030 TO N_2025"),
        UNREADABLE,
        "source_missing",
        "WwTw_lookup.Nitrogen_2025_2030",
    ),
    ("coeff_thousands", _cell("CR0101", 5, "1,234.5"), QC_FAILED, "coefficient_range", "CR0101"),
    ("coeff_negative", _cell("CR0101", 6, -0.5), QC_FAILED, "coefficient_range", "CR0101"),
    ("coeff_huge", _cell("CR0101", 7, 1e308), QC_FAILED, "coefficient_range", "CR0101"),
    ("coeff_inf_text", _cell("CR0101", 5, "inf"), QC_FAILED, "coefficient_range", "CR0101"),
    (
        "coeff_blob",
        _coeff_update(
            "UPDATE \"NMSCoefficientLayer\" SET LU_CurrPcoeff = X'00ff' WHERE cromeid = 'CR0101'"
        ),
        QC_FAILED,
        "value_invalid",
        "CR0101",
    ),
    (
        "conc_thousands",
        _permit(("\t11307", "A", "Upper Yare", "1,234.5", "10", "1", "1")),
        QC_FAILED,
        "value_invalid",
        "Nitrogen_2025_2030",
    ),
    (
        "conc_na",
        _permit(("\t11307", "A", "Upper Yare", "N/A", "10", "1", "1")),
        QC_FAILED,
        "value_invalid",
        "Nitrogen_2025_2030",
    ),
    (
        "conc_negative",
        _permit(("\t11307", "A", "Upper Yare", "-27", "10", "1", "1")),
        QC_FAILED,
        "value_invalid",
        "Nitrogen_2025_2030",
    ),
    (
        "conc_huge",
        _permit(("\t11307", "A", "Upper Yare", "1e308", "10", "1", "1")),
        QC_FAILED,
        "value_invalid",
        "Nitrogen_2025_2030",
    ),
    (
        "conc_nan",
        _permit(("\t11307", "A", "Upper Yare", "NaN", "10", "1", "1")),
        QC_FAILED,
        "value_invalid",
        "Nitrogen_2025_2030",
    ),
    (
        "occupancy_na",
        _before(lambda d: d.rates.__setitem__(0, ("Alpha SAC", "N/A", 120.0))),
        QC_FAILED,
        "value_invalid",
        "Occ_Rate",
    ),
    (
        "occupancy_zero",
        _before(lambda d: d.rates.__setitem__(0, ("Alpha SAC", 0.0, 120.0))),
        QC_FAILED,
        "value_invalid",
        "Occ_Rate",
    ),
    (
        "occupancy_huge",
        _before(lambda d: d.rates.__setitem__(0, ("Alpha SAC", 1e308, 120.0))),
        QC_FAILED,
        "value_invalid",
        "Occ_Rate",
    ),
    (
        "levy_na",
        _levy_row(CHARGE + "N/A"),
        QC_FAILED,
        "charge_invalid",
        "base_charge_per_unit 'N/A' is not a decimal",
    ),
    (
        "levy_blank",
        _levy_row(CHARGE),
        QC_FAILED,
        "charge_invalid",
        "base_charge_per_unit None is not a decimal",
    ),
    (
        "levy_negative",
        _levy_row(CHARGE + "-2675.0000"),
        QC_FAILED,
        "charge_invalid",
        "base_charge_per_unit '-2675.0000' is not above 0",
    ),
    (
        "levy_huge",
        _levy_row(CHARGE + "1e300"),
        QC_FAILED,
        "charge_invalid",
        "base_charge_per_unit '1e300' is not a decimal",
    ),
    (
        "levy_date_not_iso",
        _levy_row("1,Yare EDP,2026-04-01,01/04/2026,2027-03-31,2675.0000"),
        QC_FAILED,
        "charge_invalid",
        "charge_valid_from '01/04/2026' is no date",
    ),
    ("levy_short_row", _levy_row("1,Yare EDP,2026-04-01"), UNREADABLE, "source_format", "line 2"),
    (
        "levy_long_row",
        _levy_row(CHARGE + "2675.0000,x"),
        UNREADABLE,
        "source_format",
        "line 2",
    ),
    (
        "levy_utf16",
        _after(
            lambda _, paths: paths["charges"].write_bytes(
                paths["charges"].read_text().encode("utf-16")
            )
        ),
        UNREADABLE,
        "source_encoding",
        "line 1",
    ),
    (
        "levy_semicolons",
        _levy_text(lambda t: t.replace(",", ";")),
        UNREADABLE,
        "source_format",
        "line 1",
    ),
    (
        "levy_duplicate_header",
        _header("base_charge_per_unit", "base_charge_per_unit,BASE_CHARGE_PER_UNIT"),
        UNREADABLE,
        "source_format",
        "base_charge_per_unit",
    ),
    ("levy_empty_file", _write(_levy, b""), UNREADABLE, "source_missing", "the file is empty"),
    ("levy_header_only", _before(lambda d: d.charges.clear()), QC_FAILED, "empty", "-"),
    (
        "levy_overlapping_window",
        _before(lambda d: d.charges.append(CHARGE + "9999.0000")),
        QC_FAILED,
        "charge_overlap",
        "edp_id 1 from 2026-04-01",
    ),
    (
        "sqlite_text_latin1",
        _sql("UPDATE WwTw_lookup SET WwTW_name = CAST(X'416C706861E9' AS TEXT) WHERE rowid = 1"),
        UNREADABLE,
        "source_encoding",
        "row 1",
    ),
    (
        "rates_text_latin1",
        _sql("UPDATE rates_lookup SET NN_Catchment = CAST(X'486F74E96C' AS TEXT) WHERE rowid = 3"),
        UNREADABLE,
        "source_encoding",
        "row 3",
    ),
    (
        "coeff_text_latin1",
        _coeff_update(
            "UPDATE \"NMSCoefficientLayer\" SET Land_use_cat = CAST(X'417261626CE9' AS TEXT) "
            "WHERE cromeid = 'CR0101'"
        ),
        UNREADABLE,
        "source_encoding",
        "Land_use_cat",
    ),
    # lookups
    (
        "no_permit_table",
        _sql("DROP TABLE WwTw_lookup"),
        UNREADABLE,
        "source_missing",
        "WwTw_lookup",
    ),
    (
        "no_rates_table",
        _sql("DROP TABLE rates_lookup"),
        UNREADABLE,
        "source_missing",
        "rates_lookup",
    ),
    (
        "duplicate_rate_conflict",
        _before(lambda d: d.rates.append(("Alpha SAC", 2.5, 120.0))),
        QC_FAILED,
        "key_duplicate",
        "Alpha SAC",
    ),
    (
        "permit_without_works",
        _before(
            lambda d: d.permits.append(("99999", "Nowhere", "Lower Yare", "27", "10", "1", "1"))
        ),
        QC_FAILED,
        "ref_works",
        "99999",
    ),
    (
        "permit_code_blob",
        _sql("UPDATE WwTw_lookup SET WwTW_code = X'3131333037' WHERE rowid=1"),
        QC_FAILED,
        "key_missing",
        "row 1",
    ),
    (
        "permit_code_text",
        _permit(("WW11307", "A", "Upper Yare", "27", "10", "1", "1")),
        QC_FAILED,
        "key_missing",
        "WW11307",
    ),
    (
        "permit_code_1e30",
        _permit(("1e30", "A", "Upper Yare", "27", "10", "1", "1")),
        QC_FAILED,
        "key_missing",
        "1e30",
    ),
    (
        "works_id_1e30",
        _before(lambda d: d.wwtw.__setitem__(0, (d.wwtw[0][0], 1e30, "A"))),
        QC_FAILED,
        "key_missing",
        "source fid 0",
    ),
    (
        "charge_for_no_edp",
        _before(lambda d: d.charges.append("9,X,2026-04-01,2026-04-01,2027-03-31,1")),
        QC_FAILED,
        "ref_charge_edp",
        "edp_id 9",
    ),
    (
        "edp_with_two_names",
        _before(lambda d: d.nn.append((box(X0 + 3000, Y0, X0 + 3500, Y0 + 500), "Gamma SAC", 2))),
        QC_FAILED,
        "key_conflict",
        "source fid 2",
    ),
    ("coefficients_empty", _before(lambda d: d.coefficients.clear()), QC_FAILED, "empty", "-"),
    (
        "rates_table_empty",
        _before(lambda d: d.rates.clear()),
        QC_FAILED,
        "empty",
        "rates_lookup has no rows",
    ),
    (
        "permit_table_empty",
        _before(lambda d: d.permits.clear()),
        QC_FAILED,
        "empty",
        "WwTw_lookup has no rows",
    ),
    # the manifest
    (
        "manifest_not_toml",
        _before(lambda d: setattr(d, "manifest", "[options\n")),
        UNREADABLE,
        "bad_manifest",
        "sources.toml",
    ),
    (
        "manifest_latin1",
        _after(lambda _, paths: paths["manifest"].write_bytes(b"# caf\xe9\n")),
        UNREADABLE,
        "bad_manifest",
        "sources.toml",
    ),
    (
        "manifest_categories_text",
        _before(lambda d: setattr(d, "manifest", '[options]\ndwelling_categories = "Hotel"\n')),
        UNREADABLE,
        "bad_manifest",
        "dwelling_categories",
    ),
    (
        "manifest_occupancy_text",
        _before(lambda d: setattr(d, "manifest", '[options]\ndefault_occupancy = "two"\n')),
        UNREADABLE,
        "bad_manifest",
        "default_occupancy",
    ),
    ("dbf_cp1252_without_cpg", _cp1252_lpa(), UNREADABLE, "source_encoding", "source fid 0"),
    (
        "manifest_layer_number",
        _before(lambda d: setattr(d, "manifest", "[sources.lpa_boundaries]\nlayer = 3\n")),
        UNREADABLE,
        "bad_manifest",
        "lpa_boundaries",
    ),
]


@pytest.mark.parametrize(
    ("breakage", "status", "code", "place"),
    [c[1:] for c in REFUSED],
    ids=[c[0] for c in REFUSED],
)
def test_a_broken_delivery_is_refused_naming_the_place_and_nothing_is_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    breakage: Breakage,
    status: int,
    code: str,
    place: str,
) -> None:
    exit_status, stderr = run_build(tmp_path, breakage, capsys)
    assert exit_status == status, stderr
    assert "Traceback" not in stderr
    assert code in stderr and place in stderr, stderr
    if (tmp_path / "out" / "out.qc.json").exists():  # not for a manifest that cannot be read
        named = [f for f in findings(tmp_path) if f["code"] == code]
        assert any(place in f"{f['key']} {f['detail']}" for f in named), named
    assert_nothing_written(tmp_path)


def _bowtie_edp(d: FixtureData) -> None:
    # The second EDP polygon's ring drawn corner to corner: it crosses itself at its middle,
    # (X0 + 1500 + 1500 / 2, Y0 + 2000 / 2) = (X0 + 2250, Y0 + 1000).
    ring = [(X0 + 1500, Y0), (X0 + 3000, Y0 + 2000), (X0 + 3000, Y0), (X0 + 1500, Y0 + 2000)]
    d.edps[1] = (Polygon(ring), 1, "Yare EDP")


@pytest.mark.parametrize(
    ("breakage", "layer", "delivered", "key"),
    [
        (_before(_bowtie), "nn_catchments", SHP["nn"], "source fid 0 (Alpha SAC)"),
        (_before(_bowtie_edp), "edp_boundaries", SHP["edp"], "source fid 1 (Yare EDP)"),
    ],
    ids=["nn_catchment", "edp_boundary"],
)
def test_an_invalid_shapefile_feature_is_named_by_its_delivered_file_key_and_fix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    breakage: Breakage,
    layer: str,
    delivered: str,
    key: str,
) -> None:
    """The finding names the .shp as delivered (relative to the delivery folder), the layer,
    the feature's own key and the fix, in the .qc.json, the .qc.md and on stderr alike."""
    exit_status, stderr = run_build(tmp_path, breakage, capsys)
    assert exit_status == QC_FAILED, stderr
    [finding] = [f for f in findings(tmp_path) if f["code"] == "geometry_invalid"]
    assert (finding["layer"], finding["key"]) == (layer, key)
    assert finding["detail"].startswith(f"in `{delivered}`: Self-intersection")
    assert finding["detail"].endswith("export the layer again")
    line = f"`geometry_invalid` {layer} [{key}]: {finding['detail']}"
    assert line in (tmp_path / "out" / "out.qc.md").read_text()
    assert f"geometry_invalid {layer} [{key}]: {finding['detail']}" in stderr


def _bowtie_cell(d: FixtureData) -> None:
    # Cell CR0101 (x 100-200, y 100-200 from the origin) drawn corner to corner: its ring
    # crosses itself at the cell's middle, (X0 + 150, Y0 + 150) = (600150, 300150).
    ring = [(X0 + 100, Y0 + 100), (X0 + 200, Y0 + 200), (X0 + 200, Y0 + 100), (X0 + 100, Y0 + 200)]
    set_cell(d, "CR0101", 0, Polygon(ring))


def _coefficients_renamed(root: Path, _: Any) -> None:
    (root / COEFF_PATH).rename(root / "nutrients" / "NMS_v2.gpkg")


_COEFFICIENTS_V2 = '[sources.land_use_coefficients]\npath = "nutrients/NMS_v2.gpkg"\n'


def _bad_value_in_a_renamed_file(d: FixtureData) -> None:
    set_cell(d, "CR0101", 6, -0.5)
    d.manifest += _COEFFICIENTS_V2


@pytest.mark.parametrize(
    ("breakage", "code", "key", "delivered", "what"),
    [
        (
            _cell("CR0101", 6, -0.5),
            "coefficient_range",
            "CR0101",
            COEFF_PATH,
            "LU_CurrPcoeff = -0.5, not in [0, 5.0]",  # the delivered column, not lu_curr_p_coeff
        ),
        (
            _before(_bowtie_cell),
            "geometry_invalid",
            "CR0101",
            COEFF_PATH,
            "Self-intersection[600150 300150]: repair the polygon",
        ),
        (
            _far_polygon(box(9e6, 9e6, 9e6 + 100, 9e6 + 100)),
            "outside_gb",
            "CRX",
            COEFF_PATH,
            "bounds (9000000.0, 9000000.0, 9000100.0, 9000100.0)",
        ),
        (  # the file the manifest names, not Defra's default name
            Breakage(_bad_value_in_a_renamed_file, _coefficients_renamed),
            "coefficient_range",
            "CR0101",
            "nutrients/NMS_v2.gpkg",
            "LU_CurrPcoeff = -0.5",
        ),
    ],
    ids=["value_range", "tile_geometry", "extent", "renamed_file"],
)
def test_a_coefficient_finding_names_the_delivered_geopackage_and_layer(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    breakage: Breakage,
    code: str,
    key: str,
    delivered: str,
    what: str,
) -> None:
    """A coefficient feature is mended in the delivered GeoPackage's layer, so the finding opens
    with both (the path relative to the delivery folder), in the report and on stderr alike."""
    exit_status, stderr = run_build(tmp_path, breakage, capsys)
    assert exit_status == QC_FAILED, stderr
    [finding] = [f for f in findings(tmp_path) if f["code"] == code and f["key"] == key]
    assert finding["layer"] == "land_use_coefficients"
    assert finding["detail"].startswith(f"in layer `NMSCoefficientLayer` of `{delivered}`: {what}")
    assert f"{code} land_use_coefficients [{key}]: {finding['detail']}" in stderr


def _bowtie_lpa(d: FixtureData) -> None:
    # Alpha District's square (X0..X0+1500, Y0..Y0+2000) drawn corner to corner: it crosses
    # itself at (X0 + 750, Y0 + 1000) = (600750, 301000).
    ring = [(X0, Y0), (X0 + 1500, Y0 + 2000), (X0 + 1500, Y0), (X0, Y0 + 2000)]
    d.lpa[0] = (Polygon(ring), "Alpha District")


def _zip_lpa_in_a_folder(root: Path, _: Any) -> None:
    """The LPA shapefile zipped as an export tool leaves it: in a folder inside the zip."""
    shp = root / SHP["lpa"]
    with zipfile.ZipFile(root / "nutrients" / "LPA.zip", "w") as archive:
        for part in sorted(shp.parent.glob("LPA_National.*")):
            archive.write(part, f"LPA/{part.name}")
            part.unlink()


def test_a_finding_in_a_zipped_shapefile_names_the_zip_and_its_member(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The zip alone does not say which shapefile to open: the finding names the member after
    `!/` (its path inside the zip), and the bundle records it beside the zip's digest."""
    manifest = '[options]\nduplicate_works = "first_wins"\n' + _LPA_ZIP

    def bowtie_zipped(d: FixtureData) -> None:
        _bowtie_lpa(d)
        d.manifest = manifest

    zipped = Breakage(bowtie_zipped, _zip_lpa_in_a_folder)
    exit_status, stderr = run_build(tmp_path, zipped, capsys)
    assert exit_status == QC_FAILED, stderr
    [finding] = [f for f in findings(tmp_path) if f["code"] == "geometry_invalid"]
    assert (finding["layer"], finding["key"]) == ("lpa_boundaries", "source fid 0 (Alpha District)")
    assert finding["detail"].startswith(
        "in `nutrients/LPA.zip!/LPA/LPA_National.shp`: Self-intersection[600750 301000]"
    )
    assert f"geometry_invalid lpa_boundaries [{finding['key']}]: {finding['detail']}" in stderr


def test_a_shapefile_in_a_folder_of_a_zip_is_read_and_recorded_with_its_member(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GDAL does not look into a folder inside a zip: the build opens the member itself."""
    manifest = '[options]\nduplicate_works = "first_wins"\n' + _LPA_ZIP
    zipped = Breakage(lambda d: setattr(d, "manifest", manifest), _zip_lpa_in_a_folder)
    exit_status, stderr = run_build(tmp_path, zipped, capsys)
    assert exit_status == 0, stderr
    names = _bundle(tmp_path, "SELECT name FROM lpa_boundaries ORDER BY source_fid")
    assert names == [("Alpha District",), ("Beta District",)]
    sql = "SELECT role, path, member FROM bundle_sources WHERE role IN "
    rows = _bundle(tmp_path, sql + "('lpa_boundaries', 'land_use_coefficients') ORDER BY role")
    assert rows == [
        ("land_use_coefficients", COEFF_PATH, "NMSCoefficientLayer"),
        ("lpa_boundaries", "nutrients/LPA.zip", "LPA/LPA_National.shp"),
    ]


def _charges_inside_the_delivery(root: Path, paths: dict[str, Path]) -> None:
    moved = root / "levy" / "charges.csv"
    moved.parent.mkdir()
    paths["charges"] = paths["charges"].rename(moved)


def test_a_levy_csv_inside_the_delivery_is_named_by_its_path_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A charging schedule kept in a folder of the delivery is named by its path from the
    delivery folder (as the shapefiles are), not by its bare name."""
    broken = Breakage(
        lambda d: d.charges.__setitem__(0, CHARGE + "lots"), _charges_inside_the_delivery
    )
    exit_status, stderr = run_build(tmp_path, broken, capsys)
    assert exit_status == QC_FAILED, stderr
    [finding] = [f for f in findings(tmp_path) if f["code"] == "charge_invalid"]
    # The header is line 1, so the first charge row is line 2.
    assert finding["detail"] == (
        "levy/charges.csv line 2: base_charge_per_unit 'lots' is not a decimal: "
        "write pounds per unit, e.g. 2675.0000"
    )


def _rename_in_gpkg(old: str, new: str) -> Breakage:
    return _coeff_update(f'ALTER TABLE "NMSCoefficientLayer" RENAME COLUMN {old} TO {new}')


# (id, breakage, layer, the finding's key must contain, its detail must contain)
CLEANED: list[tuple[str, Breakage, str, str, str]] = [
    (
        "z_polygon",
        _cell("CR0101", 0, polygon_z(100, 100, 200, 200)),
        "land_use_coefficients",
        "CR0101",
        "Z values dropped",
    ),
    (
        "z_shapefile",
        _before(lambda d: d.nn.__setitem__(0, (polygon_z(0, 0, 1500, 2000), "Alpha SAC", 1))),
        "nn_catchments",
        "source fid 0",
        "Z values dropped",
    ),
    (
        "m_polygon",
        _blob("CR0101", _m_blob()),
        "land_use_coefficients",
        "CR0101",
        "M values dropped",
    ),
    (
        "shapefile_column_case",
        _after(
            lambda root, _: rewrite_shapefile(
                root, "nn", lambda f: f.rename(columns={"N2K_Site_N": "n2k_site_n"})
            )
        ),
        "nn_catchments",
        "n2k_site_n",
        "read as 'N2K_Site_N'",
    ),
    (
        "sqlite_column_case",
        _sql("ALTER TABLE WwTw_lookup RENAME COLUMN WwTW_code TO WWTW_CODE"),
        "wwtw_permits",
        "WwTw_lookup.WWTW_CODE",
        "read as 'WwTW_code'",
    ),
    (
        "gpkg_column_case",
        _rename_in_gpkg("cromeid", "CROMEID"),
        "land_use_coefficients",
        "NMSCoefficientLayer.CROMEID",
        "read as 'cromeid'",
    ),
    (
        "oid_as_text",
        _before(lambda d: d.nn.__setitem__(1, (d.nn[1][0], "Beta SAC", " 2 "))),
        "nn_catchments",
        "source fid 1",
        "read as 2",
    ),
    (
        "coeff_spaces",
        _cell("CR0101", 5, " 12 "),
        "land_use_coefficients",
        "CR0101",
        "read as 12 (spaces stripped)",
    ),
    ("coeff_na", _cell("CR0101", 5, "N/A"), "land_use_coefficients", "CR0101", "read as NULL"),
    ("coeff_blank", _cell("CR0101", 5, ""), "land_use_coefficients", "CR0101", "read as NULL"),
    (
        "levy_pounds",
        _levy_row(CHARGE + '"£2,675.00"'),
        "levy_charges",
        "line 2",
        "read as 2675.00 (pound sign dropped, thousands separators dropped)",
    ),
    (
        "levy_thousands",
        _levy_row(CHARGE + '"2,675.00"'),
        "levy_charges",
        "line 2",
        "read as 2675.00 (thousands separators dropped)",
    ),
    (
        "levy_spaces",
        _levy_row(CHARGE + " 2675.00 "),
        "levy_charges",
        "line 2",
        "read as 2675.00 (spaces stripped)",
    ),
    (
        "levy_bom",
        _after(
            lambda _, paths: paths["charges"].write_bytes(
                b"\xef\xbb\xbf" + paths["charges"].read_bytes()
            )
        ),
        "levy_charges",
        "line 1",
        "byte-order mark dropped",
    ),
    (
        "levy_blank_rows",
        _before(lambda d: d.charges.extend(["", ",,,,,"])),
        "levy_charges",
        "line 5",
        "blank row dropped",
    ),
    (
        "levy_header_case",
        _header("edp_id", "EDP_ID"),
        "levy_charges",
        "line 1",
        "'EDP_ID' read as 'edp_id'",
    ),
    (
        "levy_header_spaces",
        _header("edp_name", " edp_name "),
        "levy_charges",
        "line 1",
        "' edp_name ' read as 'edp_name'",
    ),
    (
        "blank_permit_rows",
        _before(lambda d: d.permits.extend([(None,) * 7, ("",) * 7])),
        "wwtw_permits",
        "row 11",
        "blank row (every column empty): dropped",
    ),
    (
        "blank_rates_row",
        _before(lambda d: d.rates.append((None, None, None))),
        "occupancy_rates",
        "row 5",
        "blank row (every column empty): dropped",
    ),
    (
        "bom_in_sqlite_text",
        _sql(
            "UPDATE rates_lookup SET NN_Catchment = CAST(X'EFBBBF416C70686120534143' AS TEXT) "
            "WHERE rowid = 1"
        ),
        "occupancy_rates",
        "row 1",
        "NN_Catchment: byte-order mark dropped",
    ),
    # What Excel saves as "CSV (Comma delimited)" on a UK Windows: Windows-1252, dates day first.
    (
        "levy_cp1252_pound",
        _after(
            lambda _, paths: paths["charges"].write_bytes(
                paths["charges"].read_bytes().replace(b",2675.0000", b",\xa32675.0000")
            )
        ),
        "levy_charges",
        "line 2",
        "read as Windows-1252, not UTF-8 (byte 0xa3 is '£')",
    ),
    (
        "levy_day_first_dates",
        _levy_row("1,Yare EDP,01/04/2026,01/04/2026,31/03/2027,2675.0000"),
        "levy_charges",
        "line 2",
        "charge_valid_to '31/03/2027' read as 2027-03-31 (day first, as '31/03/2027' in the file",
    ),
    (
        "levy_day_first_ambiguous_alone_but_not_in_the_file",
        _levy_row("1,Yare EDP,01/04/2026,01/04/2026,31/03/2027,2675.0000"),
        "levy_charges",
        "line 2",
        "charge_valid_from '01/04/2026' read as 2026-04-01",
    ),
    (
        "levy_identical_repeat",
        _before(lambda d: d.charges.append(d.charges[0])),
        "levy_charges",
        "line 4",
        "repeats an earlier row exactly: dropped",
    ),
]


@pytest.mark.parametrize(
    ("breakage", "layer", "key", "detail"),
    [c[1:] for c in CLEANED],
    ids=[c[0] for c in CLEANED],
)
def test_an_unambiguous_breakage_is_cleaned_and_listed(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    breakage: Breakage,
    layer: str,
    key: str,
    detail: str,
) -> None:
    exit_status, stderr = run_build(tmp_path, breakage, capsys)
    assert exit_status == 0, stderr
    cleaned = [f for f in findings(tmp_path) if f["code"] == "cleaned" and f["layer"] == layer]
    assert any(key in f["key"] and detail in f["detail"] for f in cleaned), cleaned
    assert (tmp_path / "out" / "out.gpkg").read_bytes() != OLD


def _bundle(tmp_path: Path, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(tmp_path / "out" / "out.gpkg")) as db:
        return db.execute(sql).fetchall()


def test_dropped_z_leaves_the_plan_shape_and_money_keeps_every_penny(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def both(d: FixtureData) -> None:
        set_cell(d, "CR0101", 0, polygon_z(100, 100, 200, 200))
        d.charges[0] = CHARGE + '"£2,675.5"'

    assert run_build(tmp_path, _before(both), capsys)[0] == 0
    (blob,) = _bundle(tmp_path, "SELECT geom FROM land_use_coefficients WHERE cromeid = 'CR0101'")
    geometry = decode_blobs([blob[0]])[0]
    assert not geometry.has_z
    assert geometry.equals(box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200))  # 100 m x 100 m cell
    # "£2,675.5" is £2,675.50: kept exact, written with the schedule's 4 places.
    assert _bundle(tmp_path, "SELECT base_charge_per_unit FROM levy_charges WHERE fid = 1") == [
        ("2675.5000",)
    ]


def test_polygons_and_multipolygons_mixed_in_one_layer_are_both_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cell_box = box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200)
    exit_status, stderr = run_build(tmp_path, _cell("CR0101", 0, MultiPolygon([cell_box])), capsys)
    assert exit_status == 0, stderr
    assert not [f for f in findings(tmp_path) if f["severity"] == "error"]


def test_a_works_polygon_without_a_permit_is_built_with_a_warning_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orphan = (box(X0 + 3500, Y0, X0 + 4000, Y0 + 1000), 777, "Orphan WwTW")
    exit_status, stderr = run_build(tmp_path, _before(lambda d: d.wwtw.append(orphan)), capsys)
    assert exit_status == 0, stderr
    warned = [(f["code"], f["layer"], f["key"]) for f in findings(tmp_path)]
    assert ("works_without_permit", "wwtw_catchments", "777") in warned


@pytest.mark.parametrize(
    ("previous", "code"),
    [(b"<html>502 Bad Gateway</html>", "source_corrupt"), (None, "source_missing")],
    ids=["html", "missing"],
)
def test_a_previous_bundle_that_cannot_be_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], previous: bytes | None, code: str
) -> None:
    old = tmp_path / "old.gpkg"
    if previous is not None:
        old.write_bytes(previous)
    exit_status, stderr = run_build(tmp_path, Breakage(), capsys, "--previous", str(old))
    assert exit_status == UNREADABLE, stderr
    assert code in stderr and "old.gpkg" in stderr
    assert_nothing_written(tmp_path)


def test_a_zipped_shapefile_named_in_the_manifest_is_read_like_the_shapefile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def zip_lpa(root: Path, _: Any) -> None:
        shp = root / SHP["lpa"]
        with zipfile.ZipFile(root / "nutrients" / "LPA.zip", "w") as archive:
            for part in sorted(shp.parent.glob("LPA_National.*")):
                archive.write(part, part.name)
                part.unlink()

    manifest = '[options]\nduplicate_works = "first_wins"\n' + _LPA_ZIP
    zipped = Breakage(lambda d: setattr(d, "manifest", manifest), zip_lpa)
    exit_status, stderr = run_build(tmp_path, zipped, capsys)
    assert exit_status == 0, stderr
    names = _bundle(tmp_path, "SELECT name FROM lpa_boundaries ORDER BY source_fid")
    assert names == [("Alpha District",), ("Beta District",)]
