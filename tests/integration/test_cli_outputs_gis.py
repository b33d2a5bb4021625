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

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.entrypoints.cli import main
from support.sample_facts import BNW_SITES

BNW = bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gis")
    for name in ("bnw.csv", "bnw.json", "bnw.geojson", "bnw.bng.geojson"):
        assert main(["assess", str(BNW), "--output", str(out / name)]) == 0
    return out


def test_gdal_reads_one_geometry_type_typed_columns_and_the_crs(outputs: Path) -> None:
    info = pyogrio.read_info(outputs / "bnw.geojson")
    assert info["geometry_type"] == "MultiPolygon"
    assert info["crs"] == "EPSG:4326"  # RFC 7946: GDAL reads a GeoJSON without crs as WGS 84
    assert pyogrio.read_info(outputs / "bnw.bng.geojson")["crs"] == "EPSG:27700"
    assert info["features"] == BNW_SITES
    types = dict(zip(info["fields"], info["dtypes"], strict=True))
    money = ("levy_excl_vat_gbp", "vat_gbp", "levy_incl_vat_gbp")
    results = json.loads((outputs / "bnw.json").read_text())
    quoted = any(site["pricing"] for site in results["sites"])
    # An all-null column has no type to find, so the money is checked once a site is quoted.
    for name in ("n_total", "p_total", "dev_area_ha", *(money if quoted else ())):
        assert types[name] == "float64", (name, types[name])
    for name in ("rlb_id", "dwellings", "majority_wwtw_id"):
        assert types[name].startswith("int"), (name, types[name])
    for name in ("id", "name", "status", "nn_catchments", "levy_status", "reason_code"):
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
    quotes = [s["pricing"]["amount_excluding_vat"] for s in results["sites"] if s["pricing"]]
    total = sum((Decimal(q) for q in quotes), Decimal("0.00"))
    column = np.asarray(table["levy_excl_vat_gbp"], dtype=float)
    assert abs(float(np.nansum(column[assessed])) - float(total)) < 0.005
    assert np.isnan(column[~assessed]).all()
    refused = table["levy_status"] == "refused"
    assert np.isnan(column[refused]).all()  # a refused levy is null, never a 0


def test_the_levy_table_opens_in_excel_and_adds_up(outputs: Path) -> None:
    data = (outputs / "bnw.levy.csv").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    table = list(csv.reader(data.decode("utf-8-sig").splitlines()))
    # The header is row 1 even with the synthetic notice, which is a column on every row.
    header, body, total = table[0], table[1:-1], dict(zip(table[0], table[-1], strict=True))
    assert header[0] == "RLB_ID" and header[-1] == "Data_Notice"
    assert all(r[-1].startswith("SYNTHETIC DEMONSTRATION DATA") for r in table[1:])
    rows = [dict(zip(header, r, strict=True)) for r in body]
    levy = [Decimal(r["Levy_Excl_VAT_GBP"] or 0) for r in rows]
    results = json.loads((outputs / "bnw.json").read_text())
    quotes = [s["pricing"]["amount_excluding_vat"] for s in results["sites"] if s["pricing"]]
    assert sum(levy) == Decimal(total["Levy_Excl_VAT_GBP"]) == sum(map(Decimal, quotes), Decimal(0))
    assert len(body) == BNW_SITES  # one row per site
    figures = [r[k] for r in rows for k in ("N_kg_per_year", "P_kg_per_year") if r[k]]
    assert figures and all(len(c.split(".")[1]) == 2 for c in figures)
    assert all(r["Refusal_Code"] for r in rows if r["Status"] != "quoted")


def test_the_legacy_csv_is_unchanged_for_the_tools_that_read_it(outputs: Path) -> None:
    data = (outputs / "bnw.csv").read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf")  # no BOM: the header's first cell is RLB_ID
    header = data.split(b"\n", 1)[0]
    assert header.startswith(b"RLB_ID,id,Name,") and header.count(b",") == 30
    assert not header.endswith(b"\r")  # records end in LF (a CR only inside quoted names)
    with open(outputs / "bnw.csv", newline="") as handle:
        records = list(csv.reader(handle))
    assert len(records) == 1 + len(json.loads((outputs / "bnw.json").read_text())["sites"])


def test_the_geojson_is_rfc_7946_and_the_bng_copy_is_the_same_boundaries(outputs: Path) -> None:
    import shapely
    from pyproj import Transformer

    rfc = json.loads((outputs / "bnw.geojson").read_text())
    bng = json.loads((outputs / "bnw.bng.geojson").read_text())
    assert "crs" not in rfc  # RFC 7946 section 4: WGS 84 longitude, latitude, no crs member
    assert bng["crs"]["properties"]["name"] == "urn:ogc:def:crs:EPSG::27700"
    to_bng = Transformer.from_crs("EPSG:4326", "EPSG:27700", always_xy=True)
    assert len(rfc["features"]) == len(bng["features"]) == BNW_SITES
    for degrees, metres in zip(rfc["features"], bng["features"], strict=True):
        shape = shapely.geometry.shape(degrees["geometry"])
        lon, lat = np.asarray(shapely.get_coordinates(shape)).T
        assert (lon > -8).all() and (lon < 2).all() and (lat > 49).all() and (lat < 61).all()
        # Exteriors anticlockwise, holes clockwise (RFC 7946 section 3.1.6).
        for polygon in shape.geoms:
            assert polygon.exterior.is_ccw
            assert all(not ring.is_ccw for ring in polygon.interiors)
        # Back in metres it is the boundary the BNG copy holds, to a few centimetres
        # (seven decimals of a degree are about 1 cm; the projection round trip adds less).
        back = shapely.transform(shape, lambda xy: np.column_stack(to_bng.transform(*xy.T)))
        assert back.hausdorff_distance(shapely.geometry.shape(metres["geometry"])) < 0.05
