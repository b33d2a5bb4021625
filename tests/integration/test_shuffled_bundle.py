"""The benchmark's reordered bundles hold the same parcels, only stored in another order."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

from nrf.adapters.boundary_data.geopackage_blob import decode_blobs
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.bundles.synthetic_bundle import generate_bundle

ROWS = "SELECT fid, geom, lu_curr_n_coeff, n_resi_coeff FROM land_use_coefficients ORDER BY fid"
BOXES = "SELECT id, minx, maxx, miny, maxy FROM rtree_land_use_coefficients_geom ORDER BY id"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("order") / "grid.gpkg"
    generate_bundle(path, 1_500, seed=11)
    path.with_suffix(".json").write_text(json.dumps({"polygons": 1_500, "extent": [0, 0, 1, 1]}))
    return path


ROOT = Path(__file__).resolve().parents[2]


def reorder(bundle: Path, out: Path, order: str) -> None:
    command = [sys.executable, "-m", "benchmarks.shuffled_bundle", str(bundle), str(out)]
    subprocess.run([*command, "--order", order], cwd=ROOT, check=True, timeout=300)


def hilbert_index(x: int, y: int, bits: int = 21) -> int:
    """The textbook xy-to-d walk of the Hilbert curve, one cell at a time in plain Python."""
    side = 1 << bits
    d = 0
    s = side >> 1
    while s:
        rx = 1 if x & s else 0
        ry = 1 if y & s else 0
        d += s * s * ((3 * rx) ^ ry)
        if ry == 0:
            if rx == 1:
                x, y = side - 1 - x, side - 1 - y
            x, y = y, x
        s >>= 1
    return d


def _read(path: Path, sql: str) -> list[Any]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


@pytest.mark.parametrize("order", ["shuffled", "hilbert"])
def test_same_rows_renumbered_and_the_rtree_follows(
    bundle: Path, tmp_path: Path, order: str
) -> None:
    out = tmp_path / f"{order}.gpkg"
    reorder(bundle, out, order)
    before, after = _read(bundle, ROWS), _read(out, ROWS)
    assert sorted(r[1:] for r in before) == sorted(r[1:] for r in after)
    assert [r[0] for r in after] == list(range(1, len(before) + 1))
    assert [r[1:] for r in after] != [r[1:] for r in before]  # moved, not copied
    boxes = _read(out, BOXES)
    geoms = decode_blobs([r[1] for r in after])
    expected = shapely.bounds(geoms)
    assert np.allclose(np.array([b[1:] for b in boxes]), expected[:, [0, 2, 1, 3]], atol=0.01)
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["parcel_order"] == order
    assert meta["kind"] == f"simple-{order}"  # the report is named by it: not overwritten
    GeoPackageBoundaryData(out)  # opens: a valid bundle


def test_hilbert_order_follows_the_curve_through_the_box_centres(
    bundle: Path, tmp_path: Path
) -> None:
    out = tmp_path / "h.gpkg"
    reorder(bundle, out, "hilbert")
    keys = [
        hilbert_index(int((minx + maxx) // 2), int((miny + maxy) // 2))
        for _, minx, maxx, miny, maxy in _read(out, BOXES)
    ]
    assert keys == sorted(keys)
    assert keys != sorted(keys, reverse=True)
