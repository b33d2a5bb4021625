"""The quality gate: a delivery broken each way is refused with the rule's code and keys."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shapely.geometry import LineString, Point, Polygon, box

from nrf.entrypoints.cli import main
from support.delivery import FixtureData, build_command, write_delivery

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


def levy_for_unknown_edp(d: FixtureData) -> None:
    d.levy.append("9,Nowhere SAC,1.00,2.00,0.05,0.10,0.03")


def missing_levy_row(d: FixtureData) -> None:
    d.levy = d.levy[:1]


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
# which counts from 0 (d.nn[1] is fid 1; a row appended to the 2 LPAs or 5 works is fid 2 or 5).
CASES: list[tuple[Callable[[FixtureData], None], str, str]] = [
    (empty_lpa, "empty", "-"),
    (bowtie, "geometry_invalid", "CR0101"),
    (point, "geometry_type", "CR0102"),
    (no_geometry, "geometry_missing", "CR0103"),
    (outside_gb, "outside_gb", "source fid 2"),
    (no_site_name, "key_missing", "source fid 1"),
    (duplicate_cromeid, "key_duplicate", "CR0104"),
    (conflicting_oid, "key_conflict", "source fid 1"),
    (n_out_of_range, "coefficient_range", "CR0106"),
    (p_out_of_range, "coefficient_range", "CR0107"),
    (unknown_rates_catchment, "ref_rates_catchment", "Gamma SAC"),
    (permit_without_works, "ref_works", "99999"),
    (levy_for_unknown_edp, "ref_levy_edp", "9"),
    (missing_levy_row, "levy_missing", "2"),
    (overlapping_polygon, "overlap", "CR0808 / CRX"),
    (no_fallback, "fallback_missing", "141"),
    (bad_concentration, "value_invalid", "11307"),
    (conflicting_works, "works_code_conflict", "10261"),
    (line_works, "geometry_missing", "source fid 5"),
]


@pytest.mark.parametrize(("breakage", "code", "key"), CASES, ids=[c[0].__name__ for c in CASES])
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
    assert details == ["CR0808 and CRX overlap by 2500.00 m2"]  # 50 m x 50 m


def test_several_faults_are_all_reported(tmp_path: Path) -> None:
    data = FixtureData()
    for breakage in (
        bowtie,
        duplicate_cromeid,
        n_out_of_range,
        missing_levy_row,
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
        "levy_missing",
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


def test_a_gap_in_coverage_is_a_warning_and_the_bundle_is_written(tmp_path: Path) -> None:
    data = FixtureData()
    data.coefficients.pop(cell(data, "CR0000"))  # one 1 ha cell of Alpha's 300 ha
    assert build(tmp_path, data) == 0
    doc = report(tmp_path)
    gaps = [f for f in doc["findings"] if f["code"] == "coverage_gap"]
    assert [(f["key"], f["severity"]) for f in gaps] == [("Alpha SAC", "warning")]
    # Alpha is 1,500 m x 2,000 m = 300 ha, less one 1 ha cell: 299 / 300 = 0.996667.
    assert doc["figures"]["nn_catchment_coverage"] == {"Alpha SAC": 0.996667, "Beta SAC": 1.0}


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
        db.execute("UPDATE levy_rates SET edp_id = '7' WHERE edp_id = '2'")
    db.close()
    assert main(["bundle", "check", str(bundle)]) == 5
    found = errors(tmp_path)
    assert found["coefficient_range"] == {"CR0510"}
    assert found["ref_levy_edp"] == {"7"} and found["levy_missing"] == {"2"}


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
    assert details == ["CR0808 and CRX overlap by 2500.00 m2"]
    # Alpha: 300 ha less the 1 ha cell; the 0.25 ha CRX overlaps, so it adds 0.25 ha more:
    # (299 + 0.25) / 300 = 0.9975. Beta is whole.
    assert doc["figures"]["nn_catchment_coverage"] == {"Alpha SAC": 0.9975, "Beta SAC": 1.0}


def test_check_refuses_a_file_that_is_no_bundle(tmp_path: Path) -> None:
    bundle = tmp_path / "out.gpkg"
    bundle.write_text("not a database")
    assert main(["bundle", "check", str(bundle)]) == 5
    assert set(errors(tmp_path)) == {"schema"}


def test_a_bad_levy_value_is_reported_once(tmp_path: Path) -> None:
    data = FixtureData()
    data.levy[0] = "1,Alpha SAC,3127.45,lots,0.05,0.10,0.03"
    assert build(tmp_path, data) == 5
    bad = [f for f in report(tmp_path)["findings"] if f["code"] == "value_invalid"]
    assert [(f["layer"], f["key"]) for f in bad] == [("levy_rates", "table 'levy_rates' row 1")]


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
    assert found["geometry_invalid"] == {"CR0101", "CR1014", "CR1828", "source fid 1"}, found
