"""The quality gate: a delivery broken each way is refused with the rule's code and keys."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shapely.geometry import LineString, Point, Polygon, box

from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.bundles.check import check_bundle
from nrf.domain.errors import BrokenBundle
from nrf.entrypoints.cli import main
from support.delivery import FixtureData, build_command, write_delivery

# A coefficient finding opens with the delivered GeoPackage and layer, as Defra ships them.
IN_COEFFICIENTS = "in layer `NMSCoefficientLayer` of `nutrients/NMSCoefficientLayerTEST.gpkg`: "

X0, Y0 = 600_000, 300_000


def build(tmp_path: Path, data: FixtureData, *extra: str) -> int:
    paths = write_delivery(tmp_path / "iat_input", data)
    args = build_command(tmp_path / "iat_input", paths, tmp_path / "out.gpkg", "2")
    return main([*args, *extra])


def report(tmp_path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((tmp_path / "out.qc.json").read_text())
    return data


def errors(tmp_path: Path) -> dict[str, set[str]]:
    """Error code -> offending keys."""
    out: dict[str, set[str]] = {}
    for f in report(tmp_path)["findings"]:
        if f["severity"] == "error":
            out.setdefault(f["code"], set()).add(f["key"])
    return out


def cell(data: FixtureData, cromeid: str) -> int:
    return next(i for i, r in enumerate(data.coefficients) if r[1] == cromeid)


def _replace(data: FixtureData, cromeid: str, position: int, value: object) -> None:
    i = cell(data, cromeid)
    row = list(data.coefficients[i])
    row[position] = value
    data.coefficients[i] = tuple(row)


def empty_lpa(d: FixtureData) -> None:
    d.lpa = []


def bowtie(d: FixtureData) -> None:  # self-intersecting ring inside cell CR0101
    _replace(
        d,
        "CR0101",
        0,
        Polygon(
            [(X0 + 100, Y0 + 100), (X0 + 200, Y0 + 200), (X0 + 200, Y0 + 100), (X0 + 100, Y0 + 200)]
        ),
    )


def point(d: FixtureData) -> None:
    _replace(d, "CR0102", 0, Point(X0 + 250, Y0 + 150))


def no_geometry(d: FixtureData) -> None:
    _replace(d, "CR0103", 0, None)


def outside_gb(d: FixtureData) -> None:
    d.lpa.append((box(-5000, 100, -4000, 200), "Atlantis"))


def no_site_name(d: FixtureData) -> None:
    d.nn[1] = (d.nn[1][0], None, 2)


def duplicate_cromeid(d: FixtureData) -> None:
    _replace(d, "CR0105", 1, "CR0104")


def conflicting_oid(d: FixtureData) -> None:
    d.nn[1] = (d.nn[1][0], "Beta SAC", 1)


def n_out_of_range(d: FixtureData) -> None:
    _replace(d, "CR0106", 7, 75.0)  # N_ResiCoeff


def p_out_of_range(d: FixtureData) -> None:
    _replace(d, "CR0107", 8, 7.5)  # P_ResiCoeff


def unknown_rates_catchment(d: FixtureData) -> None:
    d.rates.append(("Gamma SAC", 2.5, 100.0))


def permit_without_works(d: FixtureData) -> None:
    d.permits.append(("99999", "Nowhere WwTW", "Lower Yare", "27", "10", "1", "1"))


# Charging schedule rows: the fixture's first window is line 2, its second line 3.
WINDOW = "1,Yare EDP,2026-04-01,{},{},{}"


def overlapping_windows(d: FixtureData) -> None:
    # 2027-03-01..2027-06-30 shares March 2027 with line 2 and April-June 2027 with line 3.
    d.charges.append(WINDOW.format("2027-03-01", "2027-06-30", "2700.0000"))


def reversed_window(d: FixtureData) -> None:
    d.charges[1] = WINDOW.format("2027-04-01", "2027-03-31", "2750.5000")


def zero_charge(d: FixtureData) -> None:
    d.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "0.0000")


def text_charge(d: FixtureData) -> None:
    d.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "about 2750")


def five_place_charge(d: FixtureData) -> None:
    d.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "2750.50001")


def charge_for_unknown_edp(d: FixtureData) -> None:
    d.charges.append("9,Nowhere EDP,2026-04-01,2026-04-01,2027-03-31,100.0000")


def index_year_twice(d: FixtureData) -> None:
    d.index.append("2027,400,1.0499")


def edp_name_with_two_ids(d: FixtureData) -> None:
    d.edps[1] = (d.edps[1][0], 2, "Yare EDP")  # the second polygon of Yare EDP says id 2


def edp_id_with_two_names(d: FixtureData) -> None:
    d.edps[1] = (d.edps[1][0], 1, "Bure EDP")


def overlapping_polygon(d: FixtureData) -> None:
    # A 50 m x 50 m square inside cell CR0808 (x 800-900, y 800-900): overlap 2,500 m2.
    d.coefficients.append(
        (
            box(X0 + 820, Y0 + 820, X0 + 870, Y0 + 870),
            "CRX",
            "Arable",
            "Alpha SAC",
            "Upper Yare",
            "5",
            0.5,
            10.0,
            0.5,
        )
    )


def no_fallback(d: FixtureData) -> None:
    d.permits = [p for p in d.permits if p[0] != "141"]


def bad_concentration(d: FixtureData) -> None:
    d.permits[0] = ("\t11307", "Alpha WwTW", "Upper Yare", "27", "ten", "1", "1")


def conflicting_works(d: FixtureData) -> None:
    d.manifest = ""  # no first_wins: the two disagreeing 10261 rows are an error


def line_works(d: FixtureData) -> None:
    d.wwtw.append((LineString([(X0, Y0), (X0 + 10, Y0 + 10)]).buffer(0), 4242, "Empty"))


# Keys: a coefficient row by its cromeid (CR<row><col>); a shapefile row by its source fid,
# which counts from 0 (d.nn[1] is fid 1; a row appended to the 2 LPAs or 5 works is fid 2 or 5),
# and its own name or id when it has one, so a data manager can find it.
CASES: list[tuple[Callable[[FixtureData], None], str, str]] = [
    (empty_lpa, "empty", "-"),
    (bowtie, "geometry_invalid", "CR0101"),
    (point, "geometry_type", "CR0102"),
    (no_geometry, "geometry_missing", "CR0103"),
    (outside_gb, "outside_gb", "source fid 2 (Atlantis)"),
    (no_site_name, "key_missing", "source fid 1"),
    (duplicate_cromeid, "key_duplicate", "CR0104"),
    (conflicting_oid, "key_conflict", "source fid 1 (Beta SAC)"),
    (n_out_of_range, "coefficient_range", "CR0106"),
    (p_out_of_range, "coefficient_range", "CR0107"),
    (unknown_rates_catchment, "ref_rates_catchment", "Gamma SAC"),
    (permit_without_works, "ref_works", "99999"),
    (overlapping_windows, "charge_overlap", "edp_id 1 from 2027-03-01"),
    (overlapping_windows, "charge_overlap", "edp_id 1 from 2027-04-01"),
    (reversed_window, "charge_window_reversed", "edp_id 1 from 2027-04-01"),
    (zero_charge, "charge_invalid", "edp_id 1 from 2027-04-01"),
    (text_charge, "charge_invalid", "edp_id 1 from 2027-04-01"),
    (five_place_charge, "charge_invalid", "edp_id 1 from 2027-04-01"),
    (charge_for_unknown_edp, "ref_charge_edp", "edp_id 9 from 2026-04-01"),
    (index_year_twice, "index_year_duplicate", "charging_year 2027"),
    (edp_name_with_two_ids, "edp_id_conflict", "Yare EDP"),
    (edp_id_with_two_names, "edp_id_conflict", "EDP_Id 1"),
    (overlapping_polygon, "overlap", "CR0808 / CRX"),
    (no_fallback, "fallback_missing", "141"),
    (bad_concentration, "value_invalid", "11307"),
    (conflicting_works, "works_code_conflict", "10261"),
    (line_works, "geometry_missing", "source fid 5 (4242)"),
]


@pytest.mark.parametrize(
    ("breakage", "code", "key"), CASES, ids=[f"{c[0].__name__}-{c[2]}" for c in CASES]
)
def test_a_broken_delivery_is_refused_naming_rule_and_key(
    tmp_path: Path, breakage: Callable[[FixtureData], None], code: str, key: str
) -> None:
    data = FixtureData()
    breakage(data)
    assert build(tmp_path, data) == 5
    assert not (tmp_path / "out.gpkg").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.gpkg")]
    found = errors(tmp_path)
    assert key in found.get(code, set()), found
    assert report(tmp_path)["outcome"] == "failed"
    assert f"`{code}`" in (tmp_path / "out.qc.md").read_text()


def test_an_overlap_is_reported_with_its_area(tmp_path: Path) -> None:
    data = FixtureData()
    overlapping_polygon(data)
    assert build(tmp_path, data) == 5
    details = [f["detail"] for f in report(tmp_path)["findings"] if f["code"] == "overlap"]
    assert details == [f"{IN_COEFFICIENTS}CR0808 and CRX overlap by 2500.00 m2"]  # 50 m x 50 m


def test_several_faults_are_all_reported(tmp_path: Path) -> None:
    data = FixtureData()
    for breakage in (
        bowtie,
        duplicate_cromeid,
        n_out_of_range,
        overlapping_windows,
        overlapping_polygon,
        permit_without_works,
    ):
        breakage(data)
    assert build(tmp_path, data) == 5
    found = errors(tmp_path)
    assert {
        "geometry_invalid",
        "key_duplicate",
        "coefficient_range",
        "charge_overlap",
        "overlap",
        "ref_works",
    } <= set(found)
    assert not (tmp_path / "out.gpkg").exists()


def test_a_layer_without_a_crs_is_refused_unless_the_manifest_gives_one(tmp_path: Path) -> None:
    data = FixtureData()
    data.crs["wfd"] = None
    assert build(tmp_path, data) == 6
    assert "source_crs" in errors(tmp_path)
    assert not (tmp_path / "out.gpkg").exists()


def test_a_layer_in_another_crs_is_refused(tmp_path: Path) -> None:
    data = FixtureData()
    data.crs["lpa"] = "EPSG:3857"
    assert build(tmp_path, data) == 6
    assert errors(tmp_path)["source_crs"] == {"nutrients/LPA/LPA_National.shp"}


def test_a_missing_source_file_or_column_is_named(tmp_path: Path) -> None:
    paths = write_delivery(tmp_path / "iat_input", FixtureData())
    (tmp_path / "iat_input/nutrients/LPA/LPA_National.shp").unlink()
    lookups = tmp_path / "iat_input/nutrients/SQL_Lookups/Interim_coeffs.sqlite"
    with sqlite3.connect(lookups) as db:
        db.execute("ALTER TABLE rates_lookup RENAME COLUMN Occ_Rate TO Occupancy")
    db.close()
    args = build_command(tmp_path / "iat_input", paths, tmp_path / "out.gpkg", "2", manifest=False)
    code = main(args)
    assert code == 6
    assert errors(tmp_path)["source_missing"] == {
        "nutrients/LPA/LPA_National.shp",
        "rates_lookup.Occ_Rate",
    }


def test_a_gap_in_coverage_inside_a_catchment_is_an_error(tmp_path: Path) -> None:
    # A site on the missing cell would lose its land-use figures (issue 19: a sample site's
    # levy fell to £0.00 while its nitrogen rose), so the gap stops the bundle.
    data = FixtureData()
    data.coefficients.pop(cell(data, "CR0000"))  # one 1 ha cell of Alpha's 300 ha
    assert build(tmp_path, data) == 5
    assert not (tmp_path / "out.gpkg").exists()
    doc = report(tmp_path)
    gaps = [f for f in doc["findings"] if f["code"] == "coverage_gap"]
    assert [(f["key"], f["severity"]) for f in gaps] == [("Alpha SAC", "error")]
    # Alpha is 1,500 m x 2,000 m = 300 ha, less one 1 ha cell: 299 / 300 = 0.996667.
    assert doc["figures"]["nn_catchment_coverage"] == {"Alpha SAC": 0.996667, "Beta SAC": 1.0}
    assert gaps[0]["detail"].startswith(
        f"{IN_COEFFICIENTS}coefficient polygons cover 99.67% of the catchment: 1.00 ha has none"
    )


def test_a_build_smaller_than_previous_is_refused(tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.mkdir()
    assert build(first, FixtureData()) == 0
    data = FixtureData()
    data.coefficients = data.coefficients[:500]  # 500 of 600 rows: 83 %, under 90 %
    assert build(tmp_path, data, "--previous", str(first / "out.gpkg")) == 5
    assert errors(tmp_path)["shrunk"] == {"-"}
    shrunk = next(f for f in report(tmp_path)["findings"] if f["code"] == "shrunk")
    assert shrunk["layer"] == "land_use_coefficients"
    assert "83.3% of the previous 600" in shrunk["detail"]


def test_check_reruns_the_gate_on_a_finished_bundle(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    assert main(["bundle", "check", str(bundle)]) == 0
    with sqlite3.connect(bundle) as db:
        db.execute("UPDATE land_use_coefficients SET p_resi_coeff = 9.5 WHERE cromeid = 'CR0510'")
        db.execute("UPDATE levy_charges SET edp_id = 7 WHERE charge_valid_from = '2027-04-01'")
        db.execute("UPDATE levy_inflation_index SET charging_year = 2026")
    db.close()
    assert main(["bundle", "check", str(bundle)]) == 5
    found = errors(tmp_path)
    assert found["coefficient_range"] == {"CR0510"}
    assert found["ref_charge_edp"] == {"edp_id 7 from 2027-04-01"}
    assert found["index_year_duplicate"] == {"charging_year 2026"}


def test_many_tiles_over_two_processes_report_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nrf.bundles.qc import tiles

    # 600 cells at most 40 a tile: the layer is cut into 16+ tiles, shared by two workers.
    monkeypatch.setattr(tiles, "TILE_FEATURES", 40)
    monkeypatch.setattr(tiles.os, "cpu_count", lambda: 2)
    data = FixtureData()
    overlapping_polygon(data)
    data.coefficients.pop(cell(data, "CR0000"))
    assert build(tmp_path, data) == 5
    doc = report(tmp_path)
    details = [f["detail"] for f in doc["findings"] if f["code"] == "overlap"]
    # The tile workers (forked processes) name the delivered file too.
    assert details == [f"{IN_COEFFICIENTS}CR0808 and CRX overlap by 2500.00 m2"]
    # Alpha: 300 ha less the 1 ha cell; the 0.25 ha CRX overlaps, so it adds 0.25 ha more:
    # (299 + 0.25) / 300 = 0.9975. Beta is whole.
    assert doc["figures"]["nn_catchment_coverage"] == {"Alpha SAC": 0.9975, "Beta SAC": 1.0}


def test_check_refuses_a_file_that_is_no_bundle(tmp_path: Path) -> None:
    bundle = tmp_path / "out.gpkg"
    bundle.write_text("not a database")
    assert main(["bundle", "check", str(bundle)]) == 5
    assert set(errors(tmp_path)) == {"schema"}


def test_a_bad_charge_is_reported_once_and_judged_no_further(tmp_path: Path) -> None:
    # Line 3 has a bad charge, an unknown EDP and a window over line 2's: one finding, not three.
    data = FixtureData()
    data.charges[1] = "9,Nowhere EDP,2026-04-01,2026-05-01,2027-03-31,lots"
    assert build(tmp_path, data) == 5
    bad = [f for f in report(tmp_path)["findings"] if f["severity"] == "error"]
    assert [(f["code"], f["layer"], f["key"]) for f in bad] == [
        ("charge_invalid", "levy_charges", "edp_id 9 from 2026-05-01")
    ]
    assert bad[0]["detail"] == (
        "iat_input-levy-charges.csv line 3: base_charge_per_unit 'lots' is not a decimal: "
        "write pounds per unit, e.g. 2675.0000"
    )


def test_each_gate_finding_names_the_delivered_file_line_and_the_fix(tmp_path: Path) -> None:
    data = FixtureData()
    overlapping_windows(data)
    reversed_window(data)  # line 3 now runs backwards, so only line 4 overlaps line 2
    index_year_twice(data)
    assert build(tmp_path, data) == 5
    details = {f["code"]: f["detail"] for f in report(tmp_path)["findings"]}
    csv = "iat_input-levy-charges.csv"
    assert details["charge_window_reversed"] == (
        f"{csv} line 3: charge_valid_to 2027-03-31 is before charge_valid_from 2027-04-01: "
        "swap them, or correct the year"
    )
    assert details["charge_overlap"] == (
        f"{csv} line 4: 2027-03-01..2027-06-30 shares days with {csv} line 2's "
        "2026-04-01..2027-03-31: end the earlier window the day before the later one starts"
    )
    assert details["index_year_duplicate"] == (
        "listed 2 times (iat_input-inflation-index.csv line 3, iat_input-inflation-index.csv "
        "line 4): keep one row"
    )


def test_windows_that_meet_without_sharing_a_day_pass(tmp_path: Path) -> None:
    # The fixture's windows end 2027-03-31 and start 2027-04-01: inclusive ends, no shared day.
    # One day more on the first (to 2027-04-01) shares exactly one day with the second.
    data = FixtureData()
    (tmp_path / "first").mkdir()
    assert build(tmp_path / "first", data) == 0
    data.charges[0] = WINDOW.format("2026-04-01", "2027-04-01", "2675.0000")
    assert build(tmp_path, data) == 5
    assert errors(tmp_path) == {"charge_overlap": {"edp_id 1 from 2027-04-01"}}


def test_the_levy_tables_are_written_with_defras_columns_and_exact_text(tmp_path: Path) -> None:
    data = FixtureData()
    data.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "2750.5")
    assert build(tmp_path, data, "--vat-rate", "0.175") == 0
    with sqlite3.connect(tmp_path / "out.gpkg") as db:
        charges = db.execute(
            "SELECT edp_id, edp_name, edp_start_date, charge_valid_from, charge_valid_to, "
            "base_charge_per_unit FROM levy_charges ORDER BY fid"
        ).fetchall()
        index = db.execute("SELECT * FROM levy_inflation_index ORDER BY fid").fetchall()
        settings = db.execute("SELECT key, value FROM levy_settings").fetchall()
        edps = db.execute("SELECT edp_id, edp_name FROM edp_boundaries ORDER BY fid").fetchall()
        excluded = db.execute("SELECT name FROM excluded_areas").fetchall()
    db.close()
    assert charges == [
        (1, "Yare EDP", "2026-04-01", "2026-04-01", "2027-03-31", "2675.0000"),
        (1, "Yare EDP", "2026-04-01", "2027-04-01", "2028-03-31", "2750.5000"),  # "2750.5"
    ]
    # fid, year, index, factor, and the CSV line each came from
    assert index == [(1, 2026, "381", "1.0000", 2), (2, 2027, "392.43", "1.0300", 3)]
    # A new bundle states its rounding rule: Defra's newest, the total rounded once.
    assert settings == [("vat_rate", "0.175"), ("levy_rounding", "round_total")]
    assert edps == [(1, "Yare EDP"), (1, "Yare EDP")]
    assert excluded == [("Gamma Fen SSSI",)]


def test_the_vat_rate_defaults_to_20_percent_and_a_percentage_is_refused(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    with sqlite3.connect(tmp_path / "out.gpkg") as db:
        assert db.execute("SELECT value FROM levy_settings WHERE key = 'vat_rate'").fetchall() == [
            ("0.20",)
        ]
    db.close()
    (tmp_path / "again").mkdir()
    with pytest.raises(SystemExit) as exited:
        build(tmp_path / "again", FixtureData(), "--vat-rate", "20")
    assert exited.value.code == 2


def findings(tmp_path: Path, code: str) -> list[dict[str, Any]]:
    return [f for f in report(tmp_path)["findings"] if f["code"] == code]


def test_a_charge_that_is_not_whole_pounds_is_a_warning_naming_its_row(tmp_path: Path) -> None:
    # Defra's newest calculator refuses £2,750.50: the gate warns, names the row and the line
    # it came from, and the bundle keeps the charge exactly as delivered.
    data = FixtureData()
    data.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "2750.5")
    assert build(tmp_path, data) == 0
    [warned] = findings(tmp_path, "charge_not_whole_pounds")
    assert warned["severity"] == "warning"
    assert warned["key"] == "edp_id 1 from 2027-04-01"
    assert "line 3" in warned["detail"] and "'2750.5000'" in warned["detail"]
    # Whole pounds at any scale ("2675.0000", "2750") draw no such warning.
    data.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "2750")
    (tmp_path / "whole").mkdir()
    assert build(tmp_path / "whole", data) == 0
    assert findings(tmp_path / "whole", "charge_not_whole_pounds") == []


def test_the_rounding_rule_is_chosen_at_build_and_shown_by_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert build(tmp_path, FixtureData(), "--levy-rounding", "per_unit") == 0
    with sqlite3.connect(tmp_path / "out.gpkg") as db:
        rule = db.execute("SELECT value FROM levy_settings WHERE key = 'levy_rounding'").fetchall()
    db.close()
    assert rule == [("per_unit",)]
    assert report(tmp_path)["figures"]["levy_rounding"] == "per_unit"
    capsys.readouterr()
    assert main(["bundle", "check", str(tmp_path / "out.gpkg")]) == 0
    assert "levy rounding: per_unit" in capsys.readouterr().err
    (tmp_path / "again").mkdir()
    with pytest.raises(SystemExit) as exited:
        build(tmp_path / "again", FixtureData(), "--levy-rounding", "round_each")
    assert exited.value.code == 2


@pytest.mark.parametrize(
    ("rows", "shown", "problem"),
    [
        ([], "per_unit (not stated: older bundle)", None),
        ([("levy_rounding", "round_total")], "round_total", None),
        ([("levy_rounding", "Round_Total")], "per_unit", "is none of round_total, per_unit"),
        ([("levy_rounding", "per_unit")] * 2, "per_unit", "2 'levy_rounding' rows"),
    ],
)
def test_the_gate_reads_the_rounding_rule_of_any_bundle(
    tmp_path: Path, rows: list[tuple[str, str]], shown: str, problem: str | None
) -> None:
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    with sqlite3.connect(bundle) as db:
        db.execute("DELETE FROM levy_settings WHERE key = 'levy_rounding'")
        db.executemany("INSERT INTO levy_settings (key, value) VALUES (?, ?)", rows)
    db.close()
    checked = check_bundle(bundle)
    assert checked.figures["levy_rounding"] == shown
    found = [f.detail for f in checked.findings if f.code == "value_invalid"]
    assert len(found) == (0 if problem is None else 1)
    # The reader agrees: an unstated rule opens as per_unit; a bad one is a broken bundle.
    if problem is None:
        expected = "per_unit" if not rows else "round_total"
        assert GeoPackageBoundaryData(bundle).lookups().levy_rounding.value == expected
    else:
        assert problem in found[0]
        with pytest.raises(BrokenBundle, match=problem):
            GeoPackageBoundaryData(bundle).lookups()


def test_an_excluded_area_named_in_a_name_column_and_a_blank_name_are_read(
    tmp_path: Path,
) -> None:
    data = FixtureData()
    data.excluded_name_column = "name"  # an older export: no site_name column
    data.excluded.append((box(X0 + 100, Y0 + 100, X0 + 200, Y0 + 200), None))
    assert build(tmp_path, data) == 0
    with sqlite3.connect(tmp_path / "out.gpkg") as db:
        names = db.execute("SELECT name FROM excluded_areas ORDER BY fid").fetchall()
    db.close()
    assert names == [("Gamma Fen SSSI",), (None,)]


def test_the_levy_csvs_can_be_named_in_the_manifest_inside_the_delivery(tmp_path: Path) -> None:
    root = tmp_path / "iat_input"
    data = FixtureData()
    data.manifest += (
        '[sources.levy_charges]\npath = "levy/charges.csv"\n'
        '[sources.inflation_index]\npath = "levy/index.csv"\n'
    )
    paths = write_delivery(root, data)
    (root / "levy").mkdir()
    paths["charges"].rename(root / "levy" / "charges.csv")
    paths["index"].rename(root / "levy" / "index.csv")
    args = build_command(root, paths, tmp_path / "out.gpkg", "2")
    args = [a for a in args if a not in {str(paths["charges"]), str(paths["index"])}]
    args = [a for a in args if a not in {"--levy-charges", "--inflation-index"}]
    assert main(args) == 0
    sources = {f for f in report(tmp_path)["figures"]["sources"]}
    assert {"levy/charges.csv", "levy/index.csv"} <= sources


def test_without_a_charging_schedule_the_build_says_how_to_give_one(tmp_path: Path) -> None:
    paths = write_delivery(tmp_path / "iat_input", FixtureData())
    args = build_command(tmp_path / "iat_input", paths, tmp_path / "out.gpkg", "2")
    at = args.index("--levy-charges")
    assert main(args[:at] + args[at + 2 :]) == 6
    [missing] = [f for f in report(tmp_path)["findings"] if f["code"] == "source_missing"]
    assert missing["layer"] == "levy_charges"
    assert "--levy-charges FILE" in missing["detail"]
    assert "[sources.levy_charges] path" in missing["detail"]


def test_a_delivered_link_leading_outside_the_delivery_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "iat_input"
    paths = write_delivery(root, FixtureData())
    elsewhere = tmp_path / "elsewhere"
    (root / "nutrients" / "EDP").rename(elsewhere)  # the EDP folder now lives outside...
    (root / "nutrients" / "EDP").symlink_to(elsewhere)  # ...reached through a link
    (root / "levy_charges.csv").symlink_to(paths["charges"])  # and a CSV linked from outside
    args = build_command(root, paths, tmp_path / "out.gpkg", "2")
    at = args.index("--levy-charges")
    assert main(args[:at] + args[at + 2 :]) == 6
    assert errors(tmp_path)["source_outside"] == {
        "nutrients/EDP/EDP_Boundaries.shp",
        "nutrients/EDP/EDP_Excluded_Areas.shp",
        "levy_charges.csv",
    }
    assert not (tmp_path / "out.gpkg").exists()


def test_a_link_inside_the_delivery_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "iat_input"
    paths = write_delivery(root, FixtureData())
    (root / "schedules").mkdir()
    paths["charges"].rename(root / "schedules" / "charges.csv")
    (root / "levy_charges.csv").symlink_to(root / "schedules" / "charges.csv")
    args = build_command(root, paths, tmp_path / "out.gpkg", "2")
    at = args.index("--levy-charges")
    assert main(args[:at] + args[at + 2 :]) == 0


def test_check_refuses_a_bundle_whose_permit_rows_conflict(tmp_path: Path) -> None:
    # The build's cleaning would catch this first; `check` must catch it on any bundle.
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    with sqlite3.connect(bundle) as db:
        row = db.execute("SELECT * FROM wwtw_permits WHERE wwtw_id = 11307").fetchone()
        columns = [r[1] for r in db.execute("PRAGMA table_info(wwtw_permits)")]
        values = dict(zip(columns, row, strict=True))
        values.pop("fid")
        values["n_conc_2030_on"] = 99.0  # the same works, another concentration
        names = ", ".join(values)
        db.execute(
            f"INSERT INTO wwtw_permits ({names}) VALUES ({', '.join('?' * len(values))})",
            list(values.values()),
        )
    db.close()
    assert main(["bundle", "check", str(bundle)]) == 5
    assert errors(tmp_path) == {"works_code_conflict": {"11307"}}


def test_the_markdown_report_puts_errors_first_and_check_prints_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = FixtureData()
    data.nn.append((box(X0 + 3000, Y0, X0 + 3100, Y0 + 100), "Alpha SAC", 1))  # key_repeated
    data.coefficients.append(  # ...and covered, so Alpha has no gap
        (
            box(X0 + 3000, Y0, X0 + 3100, Y0 + 100),
            "CRY",
            "Arable",
            "Alpha SAC",
            "Upper Yare",
            *coefficient_row(),
        )
    )
    zero_charge(data)  # an error
    assert build(tmp_path, data) == 5
    text = (tmp_path / "out.qc.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## error (1)", "## warning (1)"]
    assert headings[-1] == "## figures"
    assert text.index("`charge_invalid`") < text.index("`key_repeated`") < text.index("`cleaned`")
    # `bundle check` on a bundle with only the warning says it, not just "0 errors, 1 warning".
    ok = tmp_path / "ok"
    ok.mkdir()
    good = FixtureData()
    good.nn, good.coefficients = data.nn, data.coefficients
    assert build(ok, good) == 0
    capsys.readouterr()
    assert main(["bundle", "check", str(ok / "out.gpkg")]) == 0
    stderr = capsys.readouterr().err
    assert "warning key_repeated nn_catchments [Alpha SAC]: 2 polygons" in stderr


def coefficient_row() -> tuple[object, ...]:
    return ("5", 0.5, 10.0, 0.5)


def test_a_bad_lookup_value_is_named_in_the_deliverys_own_words_once(tmp_path: Path) -> None:
    data = FixtureData()
    data.permits[0] = ("\t11307", "Alpha WwTW", "Upper Yare", "27", "10%", "1", "1")
    data.rates[0] = ("Alpha SAC", "N/A", 120.0)
    data.index[1] = "2027,392.43,3%"
    assert build(tmp_path, data) == 5
    findings = report(tmp_path)["findings"]
    details = {(f["code"], f["layer"]): f["detail"] for f in findings if f["severity"] == "error"}
    assert details[("value_invalid", "wwtw_permits")] == (
        "`Nitrogen_2030_onwards` in `WwTw_lookup` of `nutrients/SQL_Lookups/Interim_coeffs.sqlite`"
        " row 1: '10%' is not a number: write a plain number without '%' (this "
        "column is no percentage), e.g. 10 (mg/l)"
    )
    assert details[("value_invalid", "occupancy_rates")] == (
        "`Occ_Rate` in `rates_lookup` of `nutrients/SQL_Lookups/Interim_coeffs.sqlite` row 1 "
        "(NN_Catchment 'Alpha SAC'): 'N/A' is not a number: write a plain number, e.g. 2.4 "
        "persons per dwelling"
    )
    assert details[("index_invalid", "levy_inflation_index")] == (
        "iat_input-inflation-index.csv line 3: index_factor '3%' is not a decimal above 0 with "
        "at most 4 places: write the factor, e.g. 1.0300, not 3%"
    )
    # The refused concentration is not also listed as a NULL that means "no load".
    nulls = [
        f["detail"] for f in findings if f["layer"] == "wwtw_permits" and "NULL" in f["detail"]
    ]
    assert not [d for d in nulls if "row 1:" in d]


def test_an_implausible_value_names_the_delivered_column_and_row(tmp_path: Path) -> None:
    data = FixtureData()
    data.permits[0] = ("\t11307", "Alpha WwTW", "Upper Yare", "27", "999", "1", "1")
    assert build(tmp_path, data) == 5
    [bad] = [f for f in report(tmp_path)["findings"] if f["code"] == "value_invalid"]
    assert (bad["layer"], bad["key"]) == ("wwtw_permits", "11307")
    assert bad["detail"] == (
        "`Nitrogen_2030_onwards` = 999 mg/l (in `WwTw_lookup` of "
        "`nutrients/SQL_Lookups/Interim_coeffs.sqlite` row 1) is outside [0, 200]: a slipped "
        "decimal point or a sign?"
    )


def test_a_start_year_missing_from_the_index_is_a_warning_naming_each_charge(
    tmp_path: Path,
) -> None:
    # Both charges start 2026-04-01; an index of 2027 alone cannot index from 2026.
    data = FixtureData()
    data.index = ["2027,392.43,1.0300"]
    assert build(tmp_path, data) == 0
    found = [f for f in report(tmp_path)["findings"] if f["code"] == "index_year_missing"]
    assert [(f["severity"], f["key"]) for f in found] == [
        ("warning", "edp_id 1 from 2026-04-01"),
        ("warning", "edp_id 1 from 2027-04-01"),
    ]
    assert found[0]["detail"].startswith(
        "iat_input-levy-charges.csv line 2: edp_start_date 2026-04-01 is in 2026"
    )


def test_an_edp_without_a_charge_is_a_warning_and_one_with_a_bad_charge_is_not(
    tmp_path: Path,
) -> None:
    data = FixtureData()
    data.edps.append((box(X0 + 3000, Y0, X0 + 3500, Y0 + 500), 2, "Bure EDP"))  # no charge row
    data.edps.append((box(X0 + 3000, Y0 + 500, X0 + 3500, Y0 + 900), 3, "Ant EDP"))
    data.charges.append("3,Ant EDP,2026-04-01,2026-04-01,2027-03-31,free")  # a bad one
    assert build(tmp_path, data) == 5
    found = report(tmp_path)["findings"]
    missing = [(f["severity"], f["key"]) for f in found if f["code"] == "charge_missing"]
    assert missing == [("warning", "edp_id 2")]  # Ant EDP's row is refused, not also missing
    assert errors(tmp_path) == {"charge_invalid": {"edp_id 3 from 2026-04-01"}}


def test_check_refuses_a_vat_rate_written_as_a_percentage(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    with sqlite3.connect(bundle) as db:
        db.execute("UPDATE levy_settings SET value = '20' WHERE key = 'vat_rate'")
    db.close()
    assert main(["bundle", "check", str(bundle)]) == 5
    [bad] = [f for f in report(tmp_path)["findings"] if f["severity"] == "error"]
    assert (bad["code"], bad["layer"], bad["key"]) == ("value_invalid", "levy_settings", "vat_rate")
    assert "write 0.20 for 20 %" in bad["detail"]


def test_an_edp_id_conflict_is_not_also_an_edp_without_a_charge(tmp_path: Path) -> None:
    data = FixtureData()
    edp_name_with_two_ids(data)  # Yare EDP's second polygon says id 2, which has no charge
    assert build(tmp_path, data) == 5
    codes = {f["code"] for f in report(tmp_path)["findings"] if f["severity"] != "cleaned"}
    assert codes == {"edp_id_conflict"}


def _bowtie_at(x: float, y: float) -> Polygon:
    """A ring that crosses itself: (x, y) -> (x+100, y+100) -> (x+100, y) -> (x, y+100)."""
    return Polygon([(x, y), (x + 100, y + 100), (x + 100, y), (x, y + 100)])


def test_every_invalid_geometry_is_reported_not_only_the_first(tmp_path: Path) -> None:
    data = FixtureData()
    # Three bad cells far apart (rows 1, 10, 18; columns 1, 14, 28) and a bad LPA (fid 1):
    # each must be named, in whichever tile or layer it sits.
    for cromeid, (col, row) in {"CR0101": (1, 1), "CR1014": (14, 10), "CR1828": (28, 18)}.items():
        _replace(data, cromeid, 0, _bowtie_at(X0 + col * 100, Y0 + row * 100))
    data.lpa[1] = (_bowtie_at(X0 + 2000, Y0), "Beta District")
    assert build(tmp_path, data) == 5
    found = errors(tmp_path)
    assert found["geometry_invalid"] == {
        "CR0101",
        "CR1014",
        "CR1828",
        "source fid 1 (Beta District)",
    }, found
