"""Boundary files for the API tests, and the CLI's own output for the same files."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.entrypoints.cli import main

SAMPLES = bundled_samples()
SMALL_JSON = SAMPLES / "BnW_small_under_1_hectare_geojson" / "BnW_small_under_1_hectare.geojson"
SMALL_SHP = SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
BNW_SHP = SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"


def zipped_shapefile(shp: Path, target: Path) -> Path:
    """The .shp with its sidecars in one zip, as a planner would send it."""
    with zipfile.ZipFile(target, "w") as archive:
        for part in shp.parent.iterdir():
            if part.stem == shp.stem and part.suffix.lower() in (".shp", ".shx", ".dbf", ".prj"):
                archive.write(part, part.name)
    return target


def geopackage_of(source: Path, target: Path) -> Path:
    import geopandas

    geopandas.read_file(source).to_file(target, driver="GPKG")
    return target


def cli_output(source: Path, suffix: str, folder: Path, *extra: str) -> bytes:
    """What `nrf assess SOURCE --output x.SUFFIX` writes, as bytes (for .csv, the levy table,
    which is the API's text/csv answer)."""
    target = folder / f"cli-{source.stem}-{'-'.join(extra) or 'default'}{suffix}"
    assert main(["assess", str(source), "--processes", "1", "--output", str(target), *extra]) == 0
    if suffix == ".csv":
        target = target.with_suffix(".levy.csv")
    return target.read_bytes()


_MADE_AT = re.compile(rb"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d(\.\d+)?\+00:00| \d\d:\d\d:\d\d UTC)")


def unstamped(data: bytes, *inputs: str) -> bytes:
    """``data`` with the stamp's time and the given input names blanked, so two answers made
    at different times from differently named inputs compare on everything else."""
    for name in inputs:
        data = data.replace(name.encode(), b"<input>")
    return _MADE_AT.sub(b"<made-at>", data)


def feature(ring: list[list[float]], **properties: object) -> dict:
    """A GeoJSON Feature in British National Grid."""
    return {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


def collection(*features: dict) -> bytes:
    crs = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
    return json.dumps(
        {"type": "FeatureCollection", "crs": crs, "features": list(features)}
    ).encode()


def square(x: float, y: float, side: float) -> list[list[float]]:
    return [[x, y], [x + side, y], [x + side, y + side], [x, y + side], [x, y]]
