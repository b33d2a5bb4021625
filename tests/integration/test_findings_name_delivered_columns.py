"""Findings name each column as delivered: Defra's names, or the ones a manifest gives.

A data manager mends the delivery, not the bundle, so `LU_CurrPcoeff = 7.0` is what they can
act on and `lu_curr_p_coeff = 7.0` is not. Each case builds a real delivery in Defra's layout
(``support.delivery``), breaks one value, and where a manifest renames the column, renames it
in the delivered file too. `nrf bundle check` has only the bundle, so the names are recorded in
it (`bundle_columns`); a bundle built before that record keeps naming the bundle's own column.
The build's own cleanings (a stripped name, a code read as a number) use the delivered names too.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from nrf.entrypoints.cli import main
from support.breakages import coefficients_sql, lookups_sql, rewrite_shapefile, set_cell
from support.delivery import COEFF_PATH, FixtureData, build_command, write_delivery

QC_FAILED = 5
Change = Callable[[Path, dict[str, Path]], None]


def _build(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    before: Callable[[FixtureData], None],
    after: Change | None = None,
    manifest: str = "",
) -> tuple[int, list[dict[str, Any]], str]:
    data = FixtureData()
    before(data)
    data.manifest += manifest
    root = tmp_path / "iat_input"
    paths = write_delivery(root, data)
    if after is not None:
        after(root, paths)
    out = tmp_path / "out.gpkg"
    capsys.readouterr()
    status = main(build_command(root, paths, out, "1"))
    err = capsys.readouterr().err
    found = json.loads(out.with_suffix(".qc.json").read_text())["findings"]
    return status, found, err


def _one(found: list[dict[str, Any]], code: str, layer: str) -> dict[str, Any]:
    [finding] = [f for f in found if f["code"] == code and f["layer"] == layer]
    return finding


def _rename_coefficient(root: Path, _: dict[str, Path]) -> None:
    coefficients_sql(
        root, 'ALTER TABLE "NMSCoefficientLayer" RENAME COLUMN LU_CurrPcoeff TO P_Current'
    )


def _rename_nn_name(root: Path, _: dict[str, Path]) -> None:
    rewrite_shapefile(root, "nn", lambda f: f.rename(columns={"N2K_Site_N": "Site_Name"}))


def _rename_edp_name(root: Path, _: dict[str, Path]) -> None:
    rewrite_shapefile(root, "edp", lambda f: f.rename(columns={"EDP_Name": "Plan_Name"}))


def _rename_charge_column(_: Path, paths: dict[str, Path]) -> None:
    text = paths["charges"].read_text()
    paths["charges"].write_text(text.replace("base_charge_per_unit", "price_per_home", 1))


def _rename_index_column(_: Path, paths: dict[str, Path]) -> None:
    text = paths["index"].read_text()
    paths["index"].write_text(text.replace("index_factor", "factor", 1))


def _rename_permits(root: Path, _: dict[str, Path]) -> None:
    lookups_sql(
        root,
        "ALTER TABLE WwTw_lookup RENAME COLUMN Nitrogen_2030_onwards TO N_from_2030;"
        "ALTER TABLE WwTw_lookup RENAME TO Works_lookup;",
    )


def test_a_coefficient_out_of_range_names_defras_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Position 6 of a coefficient row is LU_CurrPcoeff (0 geometry, 1-4 text, 5 LU_CurrNcoeff).
    status, found, err = _build(tmp_path, capsys, lambda d: set_cell(d, "CR0101", 6, 7.0))
    assert status == QC_FAILED, err
    finding = _one(found, "coefficient_range", "land_use_coefficients")
    assert finding["detail"] == (
        f"in layer `NMSCoefficientLayer` of `{COEFF_PATH}`: LU_CurrPcoeff = 7.0, not in [0, 5.0]"
    )


def test_a_coefficient_column_renamed_by_the_manifest_is_named_as_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = '[sources.land_use_coefficients.columns]\nlu_curr_p_coeff = "P_Current"\n'
    status, found, err = _build(
        tmp_path, capsys, lambda d: set_cell(d, "CR0101", 6, 7.0), _rename_coefficient, manifest
    )
    assert status == QC_FAILED, err
    finding = _one(found, "coefficient_range", "land_use_coefficients")
    assert finding["detail"].endswith(": P_Current = 7.0, not in [0, 5.0]")
    assert f"coefficient_range land_use_coefficients [CR0101]: {finding['detail']}" in err


def test_an_lpa_without_a_name_names_the_delivered_name_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def blank(d: FixtureData) -> None:
        d.lpa[0] = (d.lpa[0][0], None)

    status, found, err = _build(tmp_path, capsys, blank)
    assert status == QC_FAILED, err
    finding = _one(found, "key_missing", "lpa_boundaries")
    assert finding["detail"] == "in `nutrients/LPA/LPA_National.shp`: no NAME"  # not `no name`


def test_a_catchment_name_column_renamed_by_the_manifest_is_named_as_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def blank(d: FixtureData) -> None:
        d.nn[0] = (d.nn[0][0], None, d.nn[0][2])

    manifest = '[sources.nn_catchments.columns]\nn2k_site_name = "Site_Name"\n'
    status, found, err = _build(tmp_path, capsys, blank, _rename_nn_name, manifest)
    assert status == QC_FAILED, err
    finding = _one(found, "key_missing", "nn_catchments")
    # The OID of the first catchment is 1, read back as the text "1".
    assert finding["detail"] == (
        "in `nutrients/Catchments/NN_Catchments_03_2024.shp`: Site_Name None / OID '1'"
    )


def test_an_edp_name_column_renamed_by_the_manifest_is_named_as_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def blank(d: FixtureData) -> None:
        d.edps[1] = (d.edps[1][0], 1, None)

    manifest = '[sources.edp_boundaries.columns]\nedp_name = "Plan_Name"\n'
    status, found, err = _build(tmp_path, capsys, blank, _rename_edp_name, manifest)
    assert status == QC_FAILED, err
    finding = _one(found, "key_missing", "edp_boundaries")
    assert finding["detail"] == "in `nutrients/EDP/EDP_Boundaries.shp`: EDP_Id 1 / Plan_Name None"


def test_a_charge_column_renamed_by_the_manifest_is_named_as_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def lots(d: FixtureData) -> None:
        d.charges[0] = "1,Yare EDP,2026-04-01,2026-04-01,2027-03-31,lots"

    manifest = '[sources.levy_charges.columns]\nbase_charge_per_unit = "price_per_home"\n'
    status, found, err = _build(tmp_path, capsys, lots, _rename_charge_column, manifest)
    assert status == QC_FAILED, err
    finding = _one(found, "charge_invalid", "levy_charges")
    # The header is line 1, so the first charge row is line 2.
    assert finding["detail"] == (
        "iat_input-levy-charges.csv line 2: price_per_home 'lots' is not a decimal: "
        "write pounds per unit, e.g. 2675.0000"
    )


def test_an_index_column_renamed_by_the_manifest_is_named_as_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def percent(d: FixtureData) -> None:
        d.index[1] = "2027,392.43,3%"

    manifest = '[sources.inflation_index.columns]\nindex_factor = "factor"\n'
    status, found, err = _build(tmp_path, capsys, percent, _rename_index_column, manifest)
    assert status == QC_FAILED, err
    finding = _one(found, "index_invalid", "levy_inflation_index")
    # Header line 1, 2026 line 2, 2027 line 3.
    assert finding["detail"] == (
        "iat_input-inflation-index.csv line 3: factor '3%' is not a decimal above 0 with at "
        "most 4 places: write the factor, e.g. 1.0300, not 3%"
    )


def test_a_permit_column_and_table_renamed_by_the_manifest_are_named_as_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def implausible(d: FixtureData) -> None:
        d.permits[0] = ("\t11307", "Alpha WwTW", "Upper Yare", "27", "999", "1", "1")

    manifest = (
        '[sources.wwtw_permits]\nlayer = "Works_lookup"\n'
        '[sources.wwtw_permits.columns]\nn_conc_2030_on = "N_from_2030"\n'
    )
    status, found, err = _build(tmp_path, capsys, implausible, _rename_permits, manifest)
    assert status == QC_FAILED, err
    finding = _one(found, "value_invalid", "wwtw_permits")
    # 999 mg/l is above the 200 mg/l bound for nitrogen; the first permit row is rowid 1.
    assert finding["detail"] == (
        "`N_from_2030` = 999 mg/l (in `Works_lookup` of "
        "`nutrients/SQL_Lookups/Interim_coeffs.sqlite` row 1) is outside [0, 200]: a slipped "
        "decimal point or a sign?"
    )


def _rename_rates(root: Path, _: dict[str, Path]) -> None:
    lookups_sql(
        root,
        "ALTER TABLE rates_lookup RENAME COLUMN Occ_Rate TO Persons;"
        "ALTER TABLE rates_lookup RENAME TO Rates_v2;",
    )


def test_a_rates_column_and_table_renamed_by_the_manifest_are_named_as_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rates share the lookups file with the permits: the bundle records the file under
    both roles, so a rates finding names its own table, not the permits'."""

    def crowded(d: FixtureData) -> None:
        d.rates[0] = ("Alpha SAC", 25.0, 120.0)

    manifest = (
        '[sources.occupancy_rates]\nlayer = "Rates_v2"\n'
        '[sources.occupancy_rates.columns]\noccupancy = "Persons"\n'
    )
    status, found, err = _build(tmp_path, capsys, crowded, _rename_rates, manifest)
    assert status == QC_FAILED, err
    finding = _one(found, "value_invalid", "occupancy_rates")
    assert finding["key"] == "Alpha SAC"
    # 25 persons per dwelling is above the bound of 20; Alpha SAC is the first rates row.
    assert finding["detail"] == (
        "`Persons` = 25 persons per dwelling (in `Rates_v2` of "
        "`nutrients/SQL_Lookups/Interim_coeffs.sqlite` row 1) is outside (0, 20]: a slipped "
        "decimal point or a sign?"
    )


def _check(capsys: pytest.CaptureFixture[str], bundle: Path) -> str:
    capsys.readouterr()
    main(["bundle", "check", str(bundle)])
    return capsys.readouterr().err


def test_bundle_check_names_the_recorded_column_and_an_older_bundle_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`bundle check` has only the bundle: the build's record names the renamed column; a
    bundle built before the record names the bundle's column, as it always did."""
    manifest = '[sources.land_use_coefficients.columns]\nlu_curr_p_coeff = "P_Current"\n'
    status, _, err = _build(tmp_path, capsys, lambda _: None, _rename_coefficient, manifest)
    assert status == 0, err
    bundle = tmp_path / "out.gpkg"
    with closing(sqlite3.connect(bundle)) as db, db:
        recorded = db.execute(
            'SELECT delivered FROM bundle_columns WHERE role = ? AND "column" = ?',
            ("land_use_coefficients", "lu_curr_p_coeff"),
        ).fetchall()
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            db.execute(f'DROP TRIGGER "{name}"')
        db.execute(
            "UPDATE land_use_coefficients SET lu_curr_p_coeff = 7.0 WHERE cromeid = 'CR0101'"
        )
    assert recorded == [("P_Current",)]
    assert (
        f"[CR0101]: in layer `NMSCoefficientLayer` of `{COEFF_PATH}`: P_Current = 7.0, not in "
        "[0, 5.0]"
    ) in _check(capsys, bundle)
    with closing(sqlite3.connect(bundle)) as db, db:
        db.execute("DROP TABLE bundle_columns")
    assert "lu_curr_p_coeff = 7.0, not in [0, 5.0]" in _check(capsys, bundle)


def _rename_lookup_keys(root: Path, _: dict[str, Path]) -> None:
    lookups_sql(
        root,
        "ALTER TABLE WwTw_lookup RENAME COLUMN WwTW_code TO Works_Code;"
        "ALTER TABLE rates_lookup RENAME COLUMN NN_Catchment TO Catchment;",
    )


def test_cleanings_name_lookup_columns_as_the_manifest_renames_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The delivery's own dirt (a tab before code 11307, a space after 'Beta SAC') is cleaned
    and listed under the columns' delivered names, which the manifest gives."""
    manifest = (
        '[sources.wwtw_permits.columns]\nwwtw_code = "Works_Code"\n'
        '[sources.occupancy_rates.columns]\nnn_catchment = "Catchment"\n'
    )
    status, found, err = _build(tmp_path, capsys, lambda _: None, _rename_lookup_keys, manifest)
    assert status == 0, err
    cleaned = {f["detail"] for f in found if f["code"] == "cleaned"}
    assert "row 1: Works_Code '\\t11307' read as 11307" in cleaned
    assert "Catchment 'Beta SAC ' stripped to 'Beta SAC'" in cleaned


def test_a_stripped_shapefile_name_is_listed_under_its_delivered_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def padded(d: FixtureData) -> None:
        # A tab, since a .dbf pads text with spaces and GDAL trims them on reading.
        d.lpa[0] = (d.lpa[0][0], "\tAlpha District")

    status, found, err = _build(tmp_path, capsys, padded)
    assert status == 0, err
    [finding] = [f for f in found if f["code"] == "cleaned" and f["layer"] == "lpa_boundaries"]
    assert finding["detail"] == "NAME '\\tAlpha District' stripped to 'Alpha District'"  # not name


def test_a_column_is_named_as_the_file_spells_it_in_other_case_or_by_its_alternative(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Columns are matched ignoring case, and an excluded area's name is read from `name` when
    the export has no `site_name`: the record keeps the name the file really has."""

    def older_export(d: FixtureData) -> None:
        d.excluded_name_column = "name"
        d.excluded[0] = (d.excluded[0][0], "\tGamma Fen SSSI")  # a .dbf trims spaces, not tabs
        set_cell(d, "CR0101", 6, 7.0)  # LU_CurrPcoeff, delivered below as lu_currpcoeff

    def lower_case(root: Path, _: dict[str, Path]) -> None:
        coefficients_sql(
            root, 'ALTER TABLE "NMSCoefficientLayer" RENAME COLUMN LU_CurrPcoeff TO lu_currpcoeff'
        )

    status, found, err = _build(tmp_path, capsys, older_export, lower_case)
    assert status == QC_FAILED, err
    finding = _one(found, "coefficient_range", "land_use_coefficients")
    assert finding["detail"].endswith(": lu_currpcoeff = 7.0, not in [0, 5.0]")
    cleaned = {f["detail"] for f in found if f["code"] == "cleaned"}
    assert "name '\\tGamma Fen SSSI' stripped to 'Gamma Fen SSSI'" in cleaned  # not site_name


def test_money_cleaned_in_a_renamed_charge_column_is_listed_under_that_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def pounds(d: FixtureData) -> None:
        d.charges[0] = '1,Yare EDP,2026-04-01,2026-04-01,2027-03-31,"£2,675.5"'

    manifest = '[sources.levy_charges.columns]\nbase_charge_per_unit = "price_per_home"\n'
    status, found, err = _build(tmp_path, capsys, pounds, _rename_charge_column, manifest)
    assert status == 0, err
    [cleaned] = [f for f in found if f["code"] == "cleaned" and f["layer"] == "levy_charges"]
    assert cleaned["detail"].startswith("price_per_home '£2,675.5' read as 2675.5 (")


def _rename_permit_code(root: Path, _: dict[str, Path]) -> None:
    lookups_sql(
        root,
        "ALTER TABLE WwTw_lookup RENAME COLUMN WwTW_code TO Works_code;"
        "ALTER TABLE WwTw_lookup RENAME TO Works_lookup;",
    )


_CODE_RENAMED = (
    '[sources.wwtw_permits]\nlayer = "Works_lookup"\n'
    '[sources.wwtw_permits.columns]\nwwtw_code = "Works_code"\n'
)


def test_a_permit_for_no_works_names_the_lookups_own_code_column_and_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def unknown_works(d: FixtureData) -> None:
        d.permits.append(("99999", "Nowhere WwTW", "Upper Yare", "27", "10", "1", "1"))

    status, found, err = _build(tmp_path, capsys, unknown_works, _rename_permit_code, _CODE_RENAMED)
    assert status == QC_FAILED, err
    finding = _one(found, "ref_works", "wwtw_permits")
    # The fixture has 9 permit rows: the appended one is rowid 10. The works layer's id
    # column is delivered as Defra's `WwTw_ID`.
    assert finding["detail"] == (
        "`Works_lookup` row 10: `Works_code` 99999 is no works polygon's id "
        "(`WwTw_ID` of wwtw_catchments)"
    )


def test_a_missing_package_plant_permit_names_the_lookups_own_code_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_fallback(d: FixtureData) -> None:
        d.permits = [p for p in d.permits if p[0] != "141"]

    status, found, err = _build(tmp_path, capsys, no_fallback, _rename_permit_code, _CODE_RENAMED)
    assert status == QC_FAILED, err
    details = [f["detail"] for f in found if f["code"] == "fallback_missing"]
    assert details
    assert all(d.startswith("no `Works_lookup` row has `Works_code` 141") for d in details), details


def test_disagreeing_permit_rows_name_each_differing_column_as_delivered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_first_wins(d: FixtureData) -> None:
        d.manifest = ""  # the fixture's two 10261 rows (rowids 7 and 8) then conflict

    manifest = '[sources.wwtw_permits.columns]\nn_conc_2025_2030 = "N_now"\n'

    def rename(root: Path, _: dict[str, Path]) -> None:
        lookups_sql(root, "ALTER TABLE WwTw_lookup RENAME COLUMN Nitrogen_2025_2030 TO N_now")

    status, found, err = _build(tmp_path, capsys, no_first_wins, rename, manifest)
    assert status == QC_FAILED, err
    finding = _one(found, "works_code_conflict", "wwtw_permits")
    # Row 7: "North WwTW " 27 10 1 1; row 8: "North WwTW (old)" 99 99 9 9 (names stripped).
    assert finding["detail"] == (
        "rows 7 and 8 of `WwTw_lookup` disagree: `WwTW_name` 'North WwTW' vs "
        "'North WwTW (old)'; `N_now` 27.0 vs 99.0; `Nitrogen_2030_onwards` 10.0 vs 99.0; "
        "`Phosphorus_2025_2030` 1.0 vs 9.0; `Phosphorus_2030_onwards` 1.0 vs 9.0"
    )
