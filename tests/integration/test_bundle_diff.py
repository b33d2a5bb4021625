"""`nrf bundle diff`: rows and rates that changed, and the sites whose quotes moved."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from nrf.entrypoints.cli import main
from support.delivery import FixtureData, build_command, write_delivery

X0, Y0 = 600_000, 300_000


def build(root: Path, data: FixtureData, version: str, *extra: str) -> Path:
    root.mkdir()
    paths = write_delivery(root / "iat_input", data)
    out = root / "bundle.gpkg"
    code = main([*build_command(root / "iat_input", paths, out, version), *extra])
    assert code == 0
    return out


def sites_file(path: Path) -> Path:
    def feature(site_id: str, x0: int, y0: int, x1: int, y1: int) -> dict[str, Any]:
        ring = [
            [X0 + x0, Y0 + y0],
            [X0 + x1, Y0 + y0],
            [X0 + x1, Y0 + y1],
            [X0 + x0, Y0 + y1],
            [X0 + x0, Y0 + y0],
        ]
        return {
            "type": "Feature",
            "properties": {
                "id": site_id,
                "Name": site_id,
                "Dwellings": 20,
                "Dwel_Cat": "housing",
                "Source": "test",
            },
            "geometry": {"type": "Polygon", "coordinates": [ring]},
        }

    path.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}},
                "features": [
                    feature("A", 200, 200, 450, 400),  # Alpha (EDP 1), away from cell CR0505
                    feature("B", 2600, 1200, 2900, 1500),  # Beta (EDP 2) only
                    feature("C", 450, 450, 650, 650),  # Alpha, over cell CR0505 (x/y 500-600)
                ],
            }
        )
    )
    return path


# 2026-11-26 12:00 UTC: the diff quotes both bundles on today's date, pinned here.
TODAY = 1795694400.0
OLD_CHARGE = "1,Yare EDP,2026-04-01,2026-04-01,2027-03-31,2193.6649"


def test_diff_lists_changed_rows_rates_and_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = FixtureData()
    data.charges[0] = OLD_CHARGE  # Defra corrected the charge on 2026-10-08: 2193.6649 -> 2675
    old = build(tmp_path / "v1", data, "1")
    data = FixtureData()
    data.index[1] = "2027,392.43,1.0299"
    i = next(k for k, r in enumerate(data.coefficients) if r[1] == "CR0505")
    data.coefficients[i] = (*data.coefficients[i][:5], "30.0", *data.coefficients[i][6:])
    new = build(tmp_path / "v2", data, "2")
    sites = sites_file(tmp_path / "sites.geojson")
    capsys.readouterr()
    monkeypatch.setattr(time, "time", lambda: TODAY)
    assert main(["bundle", "diff", str(old), str(new), "--sites", str(sites), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["old"]["version"], doc["new"]["version"]) == ("1", "2")
    rows = {r["name"]: (r["added"], r["removed"], r["changed"]) for r in doc["rows"]}
    assert rows["levy_charges"] == rows["levy_inflation_index"] == (0, 0, 1)
    assert rows["land_use_coefficients"] == (0, 0, 1)
    assert rows["wwtw_permits"] == rows["nn_catchments"] == rows["edp_boundaries"] == (0, 0, 0)
    coefficient_rows = next(r for r in doc["rows"] if r["name"] == "land_use_coefficients")
    assert coefficient_rows["examples"]["changed"] == ["CR0505"]
    # Only the changed field of each changed row, old and new, as stored.
    assert doc["rate_changes"] == [
        {
            "table": "levy_charges",
            "key": "edp_id 1 from 2026-04-01",
            "change": "changed",
            "fields": [{"field": "base_charge_per_unit", "old": "2193.6649", "new": "2675.0000"}],
        },
        {
            "table": "levy_inflation_index",
            "key": "charging_year 2027",
            "change": "changed",
            "fields": [{"field": "index_factor", "old": "1.0300", "new": "1.0299"}],
        },
    ]
    changed = {c["id"]: c for c in doc["sites_changed"]}
    assert set(changed) == {"sites:A", "sites:B", "sites:C"}  # every site is in Yare EDP
    b = changed["sites:B"]
    assert (b["old"]["n_total"], b["old"]["p_total"]) == (b["new"]["n_total"], b["new"]["p_total"])
    # Quoted 2026-11-26, the EDP's start year: no indexing. Both bundles are new, so each
    # rounds the total once: old 2193.6649 x 20 = 43,873.298 -> 43,873.30; new 2675 x 20 =
    # 53,500.00.
    assert doc["levy_rounding"] == {"old": "round_total", "new": "round_total"}
    assert (b["old"]["levy_gbp"], b["new"]["levy_gbp"]) == ("43873.30", "53500.00")
    c = changed["sites:C"]
    assert c["new"]["n_total"] != c["old"]["n_total"] and c["new"]["p_total"] == c["old"]["p_total"]


def test_a_change_of_rounding_rule_is_shown_with_the_quotes_it_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same rows; only the rule differs. Site B, 20 units at £2,193.6649 in the EDP's start
    # year: per unit 2193.66 x 20 = 43,873.20; the total once 43,873.298 -> 43,873.30.
    data = FixtureData()
    data.charges[0] = OLD_CHARGE
    old = build(tmp_path / "v1", data, "1", "--levy-rounding", "per_unit")
    new = build(tmp_path / "v2", data, "2")
    sites = sites_file(tmp_path / "sites.geojson")
    monkeypatch.setattr(time, "time", lambda: TODAY)
    capsys.readouterr()
    assert main(["bundle", "diff", str(old), str(new), "--sites", str(sites), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["levy_rounding"] == {"old": "per_unit", "new": "round_total"}
    assert doc["rate_changes"] == [
        {
            "table": "levy_settings",
            "key": "levy_rounding",
            "change": "changed",
            "fields": [{"field": "value", "old": "per_unit", "new": "round_total"}],
        }
    ]
    b = next(c for c in doc["sites_changed"] if c["id"] == "sites:B")
    assert (b["old"]["levy_gbp"], b["new"]["levy_gbp"]) == ("43873.20", "43873.30")
    assert main(["bundle", "diff", str(old), str(new), "--sites", str(sites)]) == 0
    assert "levy rounding: per_unit -> round_total (CHANGED)" in capsys.readouterr().out


def test_diff_prints_a_readable_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = build(tmp_path / "v1", FixtureData(), "1")
    sites = sites_file(tmp_path / "sites.geojson")
    capsys.readouterr()
    assert main(["bundle", "diff", str(old), str(old), "--sites", str(sites)]) == 0
    text = capsys.readouterr().out
    assert "rate changes: 0" in text
    assert "levy rounding: round_total -> round_total (unchanged)" in text
    assert "0 of 3 sites changed" in text


def test_diff_reads_its_sites_under_the_configured_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The sites file has 3 sites; NRF_MAX_SITES_PER_JOB=2 (as `nrf assess` honours) refuses it.
    old = build(tmp_path / "v1", FixtureData(), "1")
    sites = sites_file(tmp_path / "sites.geojson")
    monkeypatch.setenv("NRF_MAX_SITES_PER_JOB", "2")
    capsys.readouterr()
    assert main(["bundle", "diff", str(old), str(old), "--sites", str(sites)]) == 3
    assert "too_many_features" in capsys.readouterr().err


def test_diff_with_a_broken_bundle_exits_4(tmp_path: Path) -> None:
    old = build(tmp_path / "v1", FixtureData(), "1")
    broken = tmp_path / "broken.gpkg"
    broken.write_text("not a bundle")
    assert main(["bundle", "diff", str(old), str(broken)]) == 4


def test_diff_reassesses_the_bundled_samples_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil
    import sqlite3

    from nrf.adapters.boundary_data.packaged import bundled_reference_data

    old = tmp_path / "old.gpkg"
    new = tmp_path / "new.gpkg"
    shutil.copyfile(bundled_reference_data(), old)
    shutil.copyfile(bundled_reference_data(), new)
    with sqlite3.connect(new) as db:  # every charge doubles; nothing else changes
        db.execute(
            "UPDATE levy_charges SET base_charge_per_unit = "
            "printf('%.4f', 2 * CAST(base_charge_per_unit AS REAL))"
        )
    db.close()
    capsys.readouterr()
    monkeypatch.setattr(time, "time", lambda: TODAY)
    assert main(["bundle", "diff", str(old), str(new), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # Both sample shapefiles: their .dbf headers count 245 and 1 records, 246 sites in all.
    assert doc["sites_assessed"] == 245 + 1
    assert doc["rate_changes"], "the synthetic bundle has a charging schedule"
    for change in doc["rate_changes"]:
        assert change["table"] == "levy_charges"
        assert [f["field"] for f in change["fields"]] == ["base_charge_per_unit"]
    changed = doc["sites_changed"]
    assert changed, "some sample sites are priced"
    for site in changed:  # only the levy moves, and only up
        assert site["old"]["n_total"] == site["new"]["n_total"]
        assert Decimal(site["new"]["levy_gbp"]) > Decimal(site["old"]["levy_gbp"])
