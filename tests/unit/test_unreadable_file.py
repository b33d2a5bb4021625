"""An unreadable file's message says what is wrong in the user's terms, never GDAL's text."""

from __future__ import annotations

import logging

import pytest

from nrf.adapters.site_boundaries.unreadable_file import unreadable_message

TEMP = "/tmp/nrf-boundary-oh5wx4ug/boundary.gpkg"


@pytest.mark.parametrize(
    ("gdal_text", "expected"),
    [
        (
            f"'{TEMP}' not recognized as being in a supported file format.",
            "the file cannot be read as a GeoPackage: it is not a GeoPackage",
        ),
        (
            "sqlite3_prepare_v2(SELECT COUNT(*) FROM sqlite_master) failed: file is not a database",
            "the file cannot be read as a GeoPackage: it is not a GeoPackage"
            " (not an SQLite database)",
        ),
        (
            "sqlite3_prepare_v2(SELECT 1) failed: database disk image is malformed",
            "the file cannot be read as a GeoPackage: it is damaged (cut short or corrupt)",
        ),
        (
            "sqlite3_get_table(pragma table_xinfo('good')) failed: no such table: main.x",
            "the file cannot be read as a GeoPackage: it refers to a table it does not hold",
        ),
        (
            f"[Errno 5] Input/output error: '{TEMP}'",
            "the file cannot be read as a GeoPackage: it is damaged or not a GeoPackage",
        ),
    ],
)
def test_each_cause_in_the_users_terms(gdal_text: str, expected: str) -> None:
    assert unreadable_message(OSError(gdal_text), ".gpkg") == expected


def test_gdals_own_text_goes_to_the_log(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="nrf.boundary"):
        unreadable_message(RuntimeError(f"'{TEMP}' is odd"), ".SHP")
    (record,) = caplog.records
    assert (record.getMessage(), record.detail, record.kind) == (  # type: ignore[attr-defined]
        "boundary_unreadable",
        f"'{TEMP}' is odd",
        "shapefile",
    )
