"""The gate names the delivered file a layer came from: a shapefile's .shp, else its one file,
with the layer read from a GeoPackage and the member read from a zip."""

from __future__ import annotations

import sqlite3

from nrf.bundles.qc.delivered_file import DeliveredFile, delivered_file, in_file

COLUMNS = "role TEXT, path TEXT, bytes INTEGER, sha256 TEXT"


def _db(rows: list[tuple[str, str, str | None]], *, member: bool = True) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    if member:
        db.execute(f"CREATE TABLE bundle_sources ({COLUMNS}, member TEXT)")
        db.executemany("INSERT INTO bundle_sources VALUES (?, ?, 0, '', ?)", rows)
    else:
        db.execute(f"CREATE TABLE bundle_sources ({COLUMNS})")
        db.executemany("INSERT INTO bundle_sources VALUES (?, ?, 0, '')", [r[:2] for r in rows])
    return db


def test_a_shapefile_is_named_by_its_shp_among_its_parts() -> None:
    parts = [
        ("lpa_boundaries", f"nutrients/LPA/LPA_National.{s}", None) for s in ("cpg", "dbf", "SHP")
    ]
    db = _db([*parts, ("nn_catchments", "nutrients/Catchments/NN.shp", None)])
    found = delivered_file(db, "lpa_boundaries")
    assert found == DeliveredFile(path="nutrients/LPA/LPA_National.SHP")
    assert in_file(found) == "in `nutrients/LPA/LPA_National.SHP`: "


def test_a_zipped_shapefile_is_named_by_the_zip_and_its_member() -> None:
    db = _db([("lpa_boundaries", "nutrients/LPA.zip", "LPA/LPA_National.shp")])
    found = delivered_file(db, "lpa_boundaries")
    assert found == DeliveredFile(path="nutrients/LPA.zip!/LPA/LPA_National.shp")
    assert in_file(found) == "in `nutrients/LPA.zip!/LPA/LPA_National.shp`: "


def test_a_geopackage_layer_is_named_with_its_file() -> None:
    path = "nutrients/NMSCoefficientLayerTEST.gpkg"
    db = _db([("land_use_coefficients", path, "NMSCoefficientLayer")])
    found = delivered_file(db, "land_use_coefficients")
    assert found == DeliveredFile(path=path, layer="NMSCoefficientLayer")
    assert in_file(found) == f"in layer `NMSCoefficientLayer` of `{path}`: "


def test_a_file_read_whole_or_recorded_before_members_is_named_by_its_path() -> None:
    assert delivered_file(_db([("levy_charges", "levy/charges.csv", None)]), "levy_charges") == (
        DeliveredFile(path="levy/charges.csv")
    )
    older = _db([("lpa_boundaries", "nutrients/LPA.zip", None)], member=False)
    assert delivered_file(older, "lpa_boundaries") == DeliveredFile(path="nutrients/LPA.zip")


def test_a_bundle_without_the_record_names_no_file() -> None:
    assert delivered_file(sqlite3.connect(":memory:"), "lpa_boundaries") is None
    assert delivered_file(_db([]), "lpa_boundaries") is None
    assert in_file(None) == ""
