"""bundle_info is written from a keyword record, its QC outcome pending until the gate runs;
bundle_sources and bundle_columns beside it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from nrf.bundles.geopackage_writer import GeoPackageWriter
from nrf.bundles.provenance import BundleInfoRow, SourceFile, write_provenance


def test_the_info_row_and_the_sources_are_written_in_column_order(tmp_path: Path) -> None:
    info = BundleInfoRow(
        name="norfolk",
        version="2026.1",
        created="2026-01-02T03:04:05Z",
        description="a test",
        nrf_version="9.9.9",
    )
    source = SourceFile(role="lpa", path="lpa/lpa.shp", bytes=1234, sha256="ab" * 32)
    zipped = SourceFile(
        role="nn", path="nn.zip", bytes=99, sha256="cd" * 32, member="NN/NN_Catchments.shp"
    )
    with GeoPackageWriter(tmp_path / "b.gpkg") as writer:
        write_provenance(writer, info, [source, zipped], [("lpa", "name", "NAME")])
    with sqlite3.connect(tmp_path / "b.gpkg") as db:
        rows = db.execute(
            "SELECT name, version, created, description, nrf_version, qc_outcome, qc_summary"
            " FROM bundle_info"
        ).fetchall()
        sources = db.execute(
            "SELECT role, path, bytes, sha256, member FROM bundle_sources ORDER BY role DESC"
        ).fetchall()
        columns = db.execute('SELECT role, "column", delivered FROM bundle_columns').fetchall()
    assert rows == [("norfolk", "2026.1", "2026-01-02T03:04:05Z", "a test", "9.9.9", "pending", "")]
    assert sources == [
        ("nn", "nn.zip", 99, "cd" * 32, "NN/NN_Catchments.shp"),
        ("lpa", "lpa/lpa.shp", 1234, "ab" * 32, None),
    ]
    assert columns == [("lpa", "name", "NAME")]
