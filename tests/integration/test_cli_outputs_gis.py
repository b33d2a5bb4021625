"""What planners open: the GeoJSON in GIS (read back with GDAL), the levy table, the legacy CSV."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pyogrio
import pyogrio.raw
import pytest

from nrf.entrypoints.cli import main
from nrf.entrypoints.container import bundled_samples
from support.sample_facts import BNW_SITES

BNW = bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gis")
    for name in ("bnw.csv", "bnw.json", "bnw.geojson"):
        assert main(["assess", str(BNW), "--output", str(out / name)]) == 0
    return out


def test_gdal_reads_one_geometry_type_typed_columns_and_the_crs(outputs: Path) -> None:
    info = pyogrio.read_info(outputs / "bnw.geojson")
    assert info["geometry_type"] == "MultiPolygon"
    assert info["crs"] == "EPSG:27700"
    assert info["features"] == BNW_SITES
    types = dict(zip(info["fields"], info["dtypes"], strict=True))
    for name in ("levy_gbp", "monitoring_gbp", "n_total", "p_total", "dev_area_ha"):
        assert types[name] == "float64", (name, types[name])
    for name in ("rlb_id", "dwellings", "majority_wwtw_id"):
        assert types[name].startswith("int"), (name, types[name])
    for name in ("id", "name", "status", "nn_catchments", "edp_ids", "reason_code"):
        assert types[name] == "object", (name, types[name])
    assert types["synthetic_data"] == "bool"


def test_the_attributes_are_flat_and_the_money_adds_up(outputs: Path) -> None:
    doc = json.loads((outputs / "bnw.geojson").read_text())
    for feature in doc["features"]:
        assert feature["geometry"]["type"] == "MultiPolygon"
        assert not any(isinstance(v, dict | list) for v in feature["properties"].values())
    meta, _, _, columns = pyogrio.raw.read(outputs / "bnw.geojson")
    table = dict(zip(meta["fields"], columns, strict=True))
    assessed = table["status"] == "assessed"
    results = json.loads((outputs / "bnw.json").read_text())
    assert int(assessed.sum()) == len(results["sites"])
    # The JSON keeps money as exact decimal strings; the GIS column as numbers adds up to it.
    total = Decimal(results["levy_total"]["levy_gbp"])
    assert abs(float(np.nansum(table["levy_gbp"][assessed])) - float(total)) < 0.005
    assert np.isnan(table["levy_gbp"][~assessed]).all()


def test_the_levy_table_opens_in_excel_and_adds_up(outputs: Path) -> None:
    data = (outputs / "bnw.levy.csv").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    table = list(csv.reader(data.decode("utf-8-sig").splitlines()))
    assert table[0][0].startswith("SYNTHETIC DEMONSTRATION DATA")
    header, body, total = table[1], table[2:-1], dict(zip(table[1], table[-1], strict=True))
    levy = [Decimal(dict(zip(header, r, strict=True))["Levy_GBP"] or 0) for r in body]
    results = json.loads((outputs / "bnw.json").read_text())
    assert sum(levy) == Decimal(total["Levy_GBP"]) == Decimal(results["levy_total"]["levy_gbp"])
    assert len({r[0] for r in body}) == BNW_SITES
    cells = [c for r in body for c in r[7:14] if c]
    assert cells and all(len(c.split(".")[1]) == 2 for c in cells)


def test_the_legacy_csv_is_unchanged_for_the_tools_that_read_it(outputs: Path) -> None:
    data = (outputs / "bnw.csv").read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf")  # no BOM: the header's first cell is RLB_ID
    header = data.split(b"\n", 1)[0]
    assert header.startswith(b"RLB_ID,id,Name,") and header.count(b",") == 30
    assert not header.endswith(b"\r")  # records end in LF (a CR only inside quoted names)
    with open(outputs / "bnw.csv", newline="") as handle:
        records = list(csv.reader(handle))
    assert len(records) == 1 + len(json.loads((outputs / "bnw.json").read_text())["sites"])
