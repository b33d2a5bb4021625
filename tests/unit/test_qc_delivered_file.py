"""The gate names the delivered file a layer came from: a shapefile's .shp, else its one file."""

from __future__ import annotations

import sqlite3

from nrf.bundles.qc.delivered_file import delivered_file


def _db(rows: list[tuple[str, str]]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE bundle_sources (role TEXT, path TEXT, bytes INTEGER, sha256 TEXT)")
    db.executemany("INSERT INTO bundle_sources VALUES (?, ?, 0, '')", rows)
    return db


def test_a_shapefile_is_named_by_its_shp_among_its_parts() -> None:
    parts = [("lpa_boundaries", f"nutrients/LPA/LPA_National.{s}") for s in ("cpg", "dbf", "SHP")]
    db = _db([*parts, ("nn_catchments", "nutrients/Catchments/NN.shp")])
    assert delivered_file(db, "lpa_boundaries") == "nutrients/LPA/LPA_National.SHP"


def test_a_layer_read_from_one_file_is_named_by_it() -> None:
    db = _db([("lpa_boundaries", "nutrients/LPA.zip")])
    assert delivered_file(db, "lpa_boundaries") == "nutrients/LPA.zip"


def test_a_bundle_without_the_record_names_no_file() -> None:
    assert delivered_file(sqlite3.connect(":memory:"), "lpa_boundaries") is None
    assert delivered_file(_db([]), "lpa_boundaries") is None
