"""GDAL's and Python's warnings reach stderr as JSON records: a crafted name forges no line."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import geopandas
import pyogrio
from shapely.geometry import box

FORGED = '{"event": "request", "level": "info", "path": "/forged", "status": 200}'
# Line breaks GDAL passes through (pyogrio turns "\n" into a space, not "\r" or "\u2028").
NAME = f"site\r{FORGED}\r\n{FORGED}\u2028{FORGED}"

CHILD = """
import sys, warnings
from nrf.adapters.telemetry.logging_setup import configure_logging
configure_logging()
warnings.simplefilter("always")
import pyogrio
pyogrio.list_layers(sys.argv[1])
warnings.warn("python text\\n" + sys.argv[2], UserWarning)
"""


def crafted_geopackage(path: Path) -> Path:
    """A GeoPackage naming a layer with no table behind it: GDAL warns, quoting the name."""
    frame = geopandas.GeoDataFrame({"a": [1]}, geometry=[box(0, 0, 1, 1)], crs=27700)
    pyogrio.write_dataframe(frame, path, layer="good")
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id)"
            " VALUES (?, 'features', ?, 27700)",
            (NAME, NAME),
        )
        db.execute(
            "INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'POLYGON', 27700, 0, 0)",
            (NAME,),
        )
    return path


def test_a_crafted_layer_name_cannot_forge_a_log_line(tmp_path: Path) -> None:
    gpkg = crafted_geopackage(tmp_path / "crafted.gpkg")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(gpkg), FORGED],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    # Every line, by any reader's idea of a line break, is one whole JSON record of ours.
    lines = done.stderr.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["event"] for r in records] == ["gdal_warning", "python_warning"], lines
    gdal, python = records
    assert FORGED in gdal["detail"] and gdal["category"] == "RuntimeWarning"
    assert python["detail"] == "python text\n" + FORGED
    assert (gdal["logger"], gdal["level"]) == ("nrf.warnings", "warning")
