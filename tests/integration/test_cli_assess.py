"""`nrf assess` on the real Broads & Wensum samples with the bundled synthetic bundle."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pyogrio
import pytest

from nrf.adapters.boundary_data.packaged import bundled_reference_data, bundled_samples
from nrf.entrypoints.cli import EXIT_INVALID_INPUT, main
from support.sample_facts import BNW_SITES, Scope, sample_sites, scope_of_sites

# The header exactly as the issue gives it.
ISSUE_HEADER = (
    "RLB_ID,id,Name,Dwel_Cat,Source,Dwellings,Dev_Area_Ha,AreaInNNCatchment,NN_Catchment,"
    "Dev_SubCatchment,Majority_LPA,Majority_WwTw_ID,WwTW_name,WwTw_SubCatchment,N_LU_Uplift,"
    "P_LU_Uplift,N_LU_postSuDS,P_LU_postSuDS,Occ_Rate,Water_Usage_L_Day,Litres_used,"
    "Nitrogen_2025_2030,Nitrogen_2030_onwards,Phosphorus_2025_2030,Phosphorus_2030_onwards,"
    "N_WwTW_Temp,P_WwTW_Temp,N_WwTW_Perm,P_WwTW_Perm,N_Total,P_Total"
)
SAMPLES = bundled_samples()
BNW = SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
SMALL_SHP = SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
SMALL_JSON = SAMPLES / "BnW_small_under_1_hectare_geojson" / "BnW_small_under_1_hectare.geojson"
BUNDLE = bundled_reference_data()
# Facts of the small sample, read without nrf in test_cli_sample_facts.py: its one site is
# 24/00119/F, of 0.03 ha (shoelace).


@pytest.fixture(scope="module")
def scope() -> Scope:
    """Which sample sites are in scope, worked with shapely over the bundle's own tables."""
    return scope_of_sites(sample_sites(BNW), BUNDLE)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bnw")
    for name in ("bnw.csv", "bnw.json", "bnw.geojson"):
        assert main(["assess", str(BNW), "--output", str(out / name)]) == 0
    return out


def test_csv_is_the_legacy_31_column_table(outputs: Path, scope: Scope) -> None:
    with open(outputs / "bnw.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert ",".join(rows[0]) == ISSUE_HEADER and len(rows[0]) == 31
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    doc = json.loads((outputs / "bnw.json").read_text())
    # In scope under iat-2026-04: inside an NN catchment, or outside on a permitted works
    # that is not the package plant (222 + 12 = 234 of 245, as docs/bundle-format.md lays out).
    assert len(body) == len(doc["sites"]) == scope.in_catchments + scope.outside_with_permit
    assert [int(r["RLB_ID"]) for r in body] == sorted(int(r["RLB_ID"]) for r in body)
    assert not any("e" in cell.lower() for r in rows[1:] for cell in (r[6], *r[14:]) if cell)
    for r in body:
        # Recompute each total from its own row: B = post-SuDS + perm load (2 dp) then +20 % |B|;
        # the row's perm load is rounded, so allow one penny either way.
        post = float(r["N_LU_postSuDS"] or 0)
        base = post + float(r["N_WwTW_Perm"])
        assert abs(float(r["N_Total"]) - (base + 0.2 * abs(base))) <= 0.012 + 1e-9
        if not r["AreaInNNCatchment"]:
            assert r["N_LU_Uplift"] == r["NN_Catchment"] == ""
    sidecar = json.loads((outputs / "bnw.provenance.json").read_text())
    assert sidecar["provenance"]["synthetic_data"] is True
    assert "SYNTHETIC" in sidecar["notice"]
    assert len(sidecar["out_of_scope"]) + len(body) == BNW_SITES


def test_json_has_everything_and_catchments_add_up(outputs: Path, scope: Scope) -> None:
    doc = json.loads((outputs / "bnw.json").read_text())
    assert "SYNTHETIC" in doc["notice"]
    assert doc["provenance"]["rule_set"] == "iat-2026-04"
    assert len(doc["provenance"]["bundle_sha256"]) == 64
    assert len(doc["sites"]) + len(doc["out_of_scope"]) == BNW_SITES
    reasons = [o["reason_code"] for o in doc["out_of_scope"]]
    assert sorted(reasons) == sorted(
        ["outside_catchments_no_wwtw"] * scope.outside_no_permit
        + ["outside_catchments_package_treatment_plant"] * scope.outside_package_plant
    )
    multi = [s for s in doc["sites"] if len(s["catchments"]) > 1]
    assert len(multi) == scope.in_two_catchments, "the bundle puts 7 sites across both"
    for site in doc["sites"]:
        if site["catchments"]:
            for key in ("n_total", "p_total"):
                parts = sum(round(c[key] * 100) for c in site["catchments"])
                assert parts == round(site[key] * 100)
    assert all("levy" not in s and "levy_by_edp" not in s for s in doc["sites"])  # no per-kg
    assert "levy_total" not in doc


def test_geojson_carries_each_boundary(outputs: Path) -> None:
    info = pyogrio.read_info(outputs / "bnw.geojson")
    assert info["features"] == BNW_SITES
    assert info["crs"] == "EPSG:4326"  # RFC 7946 (the .bng.geojson copy: test_cli_outputs_gis)


def test_shapefile_and_geojson_of_one_site_agree(tmp_path: Path) -> None:
    for source, name in ((SMALL_SHP, "a.json"), (SMALL_JSON, "b.json")):
        assert main(["assess", str(source), "--output", str(tmp_path / name)]) == 0
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert a["sites"] == b["sites"] and a["sites"]
    # Shoelace area of the site's ring 259.39 m² / 10,000 = 0.0259 -> 0.03 ha.
    assert a["sites"][0]["dev_area_ha"] == 0.03


def test_rule_sets_change_the_figures(tmp_path: Path, scope: Scope) -> None:
    for rules in ("iat-2025-09", "iat-2026-04"):
        assert (
            main(
                ["assess", str(BNW), "--rules", rules, "--output", str(tmp_path / f"{rules}.json")]
            )
            == 0
        )
    sept = json.loads((tmp_path / "iat-2025-09.json").read_text())
    april = json.loads((tmp_path / "iat-2026-04.json").read_text())
    # September keeps package-treatment-plant sites outside catchments in scope: exactly those
    # (8 on the fallback 141) are the difference.
    assert len(sept["sites"]) - len(april["sites"]) == scope.outside_package_plant
    assert sept["provenance"]["rule_set"] == "iat-2025-09"
    by_id = {s["site"]["rlb_id"]: s for s in sept["sites"]}
    compared = suds_compared = 0
    for a in april["sites"]:
        s = by_id[a["site"]["rlb_id"]]
        # Same site, same water: litres/day × 365.25 × mg/L / 1e6, at 100 % (September)
        # and at 90 % (April 2026), each rounded to 2 dp.
        assert s["litres_used"] == a["litres_used"] and s["n_conc_2030_on"] == a["n_conc_2030_on"]
        if s["n_conc_2030_on"] is not None:
            kg = s["litres_used"] * 365.25 * s["n_conc_2030_on"] / 1e6
            assert s["n_wwtw_perm"] == pytest.approx(kg, abs=0.0051)
            assert a["n_wwtw_perm"] == pytest.approx(kg * 0.9, abs=0.0051)
            compared += 1
        # SuDS: on every site in September (a quarter of |uplift| off); in April 2026 only
        # from 50 dwellings. Below 1 ha April adds no greenspace, so the uplifts are equal.
        u = s["n_lu_uplift"]
        if a["site"]["dwellings"] < 50 and a["dev_area_ha"] < 1.0 and u is not None:
            assert a["n_lu_uplift"] == u
            assert a["n_lu_post_suds"] == pytest.approx(u, abs=0.005)
            assert s["n_lu_post_suds"] == pytest.approx(
                u - abs(u) * 0.25, abs=0.0051
            )  # half a penny, rounded
            suds_compared += 1
    assert compared > 0 and suds_compared > 0, "the sample exercised both rules"


def test_processes_must_be_a_positive_whole_number(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("0", "two"):
        with pytest.raises(SystemExit) as caught:
            main(["assess", str(SMALL_SHP), "--processes", bad])
        assert caught.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_bad_input_lists_every_problem_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.geojson"
    bad.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "crs": {"type": "name", "properties": {"name": "EPSG:27700"}},
                "features": [
                    {
                        "type": "Feature",
                        "properties": {
                            "id": "a",
                            "Name": "x",
                            "Dwel_Cat": "housing",
                            "Source": "t",
                            "Dwellings": -2,
                        },
                        "geometry": {
                            "type": "Polygon",
                            "coordinates": [
                                [
                                    [600000, 300000],
                                    [600100, 300100],
                                    [600100, 300000],
                                    [600000, 300100],
                                    [600000, 300000],
                                ]
                            ],
                        },
                    },
                    {
                        "type": "Feature",
                        "properties": {
                            "id": "b",
                            "Name": "y",
                            "Dwel_Cat": "housing",
                            "Source": "t",
                            "Dwellings": 1.5,
                        },
                        "geometry": {"type": "Point", "coordinates": [600000, 300000]},
                    },
                ],
            }
        )
    )
    out = tmp_path / "result.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "assess", str(bad), "--output", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == EXIT_INVALID_INPUT
    for code in ("invalid_dwellings", "self_intersecting_geometry", "unsupported_geometry_type"):
        assert code in proc.stderr
    assert "feature 1" in proc.stderr and "feature 2" in proc.stderr
    assert list(tmp_path.iterdir()) == [bad]


def test_an_unknown_output_type_is_a_usage_error_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refused while the arguments are read (exit 2, usage), so not after a whole batch ran:
    # the input named here does not even exist, and it is never looked at.
    with pytest.raises(SystemExit) as caught:
        main(["assess", str(tmp_path / "absent.shp"), "--output", str(tmp_path / "r.xlsx")])
    assert caught.value.code == 2
    assert ".xlsx" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_printed_table_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["assess", str(SMALL_SHP)]) == 0
    out = capsys.readouterr().out
    assert "SYNTHETIC DEMONSTRATION DATA" in out
    assert "24/00119/F" in out and "1 site assessed" in out  # the small file's one site
