"""The build records each bundle column's delivered name; the gate reads it back, or falls back."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from nrf.bundles.delivered_columns import COLUMNS, TABLE, column_rows
from nrf.bundles.manifest import Manifest, parse_manifest
from nrf.bundles.qc.delivered_column import column_names


def test_defra_names_are_recorded_under_the_bundles_columns() -> None:
    rows = column_rows(Manifest())
    # The coefficient role names are the bundle's; the permits' code is written to `wwtw_id`
    # and the rates' occupancy to `occupancy_rate` (the manifest's DEFAULT_SOURCES names).
    assert ("land_use_coefficients", "lu_curr_p_coeff", "LU_CurrPcoeff") in rows
    assert ("wwtw_permits", "wwtw_id", "WwTW_code") in rows
    assert ("wwtw_permits", "wwtw_subcatchment", "Subcatchment_name") in rows
    assert ("occupancy_rates", "occupancy_rate", "Occ_Rate") in rows
    assert ("occupancy_rates", "water_usage_l_per_person_day", "Water_Usage_L_Day") in rows
    assert ("levy_charges", "base_charge_per_unit", "base_charge_per_unit") in rows


def test_a_manifest_rename_is_recorded_and_the_rest_keep_defras_names() -> None:
    manifest = parse_manifest(
        {"sources": {"land_use_coefficients": {"columns": {"lu_curr_p_coeff": "P_Now"}}}}
    )
    rows = [r for r in column_rows(manifest) if r[0] == "land_use_coefficients"]
    assert ("land_use_coefficients", "lu_curr_p_coeff", "P_Now") in rows
    assert ("land_use_coefficients", "lu_curr_n_coeff", "LU_CurrNcoeff") in rows
    assert len(rows) == 8  # every column the layer is read by, once


def test_the_name_a_layer_was_read_by_replaces_the_manifests() -> None:
    # The file spells the coefficient in lower case; the excluded areas have the older `name`.
    read = {
        "land_use_coefficients": {"lu_curr_p_coeff": "lu_currpcoeff"},
        "excluded_areas": {"name": "name"},
    }
    rows = column_rows(Manifest(), read)
    assert ("land_use_coefficients", "lu_curr_p_coeff", "lu_currpcoeff") in rows
    assert ("land_use_coefficients", "lu_curr_n_coeff", "LU_CurrNcoeff") in rows  # not read
    assert ("excluded_areas", "name", "name") in rows
    assert ("excluded_areas", "name", "site_name") not in rows


def _db(rows: list[tuple[str, str, str]] | None) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    if rows is not None:
        columns = ", ".join(f'"{name}" {kind}' for name, kind in COLUMNS)
        db.execute(f"CREATE TABLE {TABLE} (fid INTEGER PRIMARY KEY, {columns})")
        db.executemany(f'INSERT INTO {TABLE} (role, "column", delivered) VALUES (?, ?, ?)', rows)
    return db


def test_the_gate_reads_the_recorded_name_for_the_role_asked() -> None:
    recorded = [("lpa_boundaries", "name", "LPA_NAME"), ("excluded_areas", "name", "site_name")]
    with closing(_db(recorded)) as db:
        named = column_names(db, "lpa_boundaries")
    assert named("name") == "LPA_NAME"
    assert named("name", "NAME") == "LPA_NAME"  # the record wins over the old wording
    assert named("other") == "other"  # not recorded: the bundle's own column


def test_a_bundle_without_the_record_keeps_todays_names() -> None:
    with closing(_db(None)) as db:
        named = column_names(db, "nn_catchments")
    assert named("n2k_site_name") == "n2k_site_name"
    assert named("n2k_site_name", "N2K_Site_N") == "N2K_Site_N"
