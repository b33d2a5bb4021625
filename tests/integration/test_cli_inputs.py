"""`nrf assess` inputs as planners hand them over: folders, multi-layer GeoPackages, no .prj."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyogrio.raw
import pytest
from shapely.geometry import box

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_ERROR, EXIT_INVALID_INPUT, EXIT_USAGE
from support.sample_facts import BNW_SITES

SAMPLES = bundled_samples()
SMALL_SHP = SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
BNW = SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
# Inside the bundled synthetic Norfolk bundle's extent (the sample sites are there too).
X, Y = 620_000, 310_000


def write_layer(
    path: Path, ids: Sequence[str], *, layer: str | None = None, crs: str | None = "EPSG:27700"
) -> Path:
    squares = [box(X + 200 * i, Y, X + 200 * i + 100, Y + 100).wkb for i in range(len(ids))]
    fields: Mapping[str, Sequence[object]] = {
        "id": list(ids),
        "Name": ["n"] * len(ids),
        "Dwel_Cat": ["housing"] * len(ids),
        "Source": ["t"] * len(ids),
        "Dwellings": [10] * len(ids),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a file without a CRS is the point
        pyogrio.raw.write(
            path,
            np.array(squares, dtype=object),
            [np.array(v) for v in fields.values()],
            fields=list(fields),
            geometry_type="Polygon",
            crs=crs,
            layer=layer,
            driver="GPKG" if path.suffix == ".gpkg" else "ESRI Shapefile",
        )
    return path


def nrf(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )


def ids_assessed(path: Path) -> list[str]:
    doc = json.loads(path.read_text())
    return sorted(item["site"]["id"] for item in [*doc["sites"], *doc["out_of_scope"]])


def test_a_shapefiles_folder_is_read_as_the_shapefile(tmp_path: Path) -> None:
    assert main(["assess", str(SMALL_SHP.parent), "--output", str(tmp_path / "a.json")]) == 0
    assert main(["assess", str(SMALL_SHP), "--output", str(tmp_path / "b.json")]) == 0
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert a["sites"] == b["sites"] and len(a["sites"]) == 1


def test_a_folder_of_several_shapefiles_names_them_and_layer_chooses(tmp_path: Path) -> None:
    write_layer(tmp_path / "north.shp", ["N1"])
    write_layer(tmp_path / "south.shp", ["S1", "S2"])
    done = nrf("assess", str(tmp_path))
    assert done.returncode == EXIT_INVALID_INPUT
    assert "ambiguous_layer" in done.stderr and "'north'" in done.stderr
    assert "'south'" in done.stderr and "--layer" in done.stderr
    out = tmp_path / "out" / "r.json"
    assert main(["assess", str(tmp_path), "--layer", "south", "--output", str(out)]) == 0
    assert ids_assessed(out) == ["S1", "S2"]


def test_layer_chooses_among_a_geopackages_layers(tmp_path: Path) -> None:
    gpkg = tmp_path / "two.gpkg"
    write_layer(gpkg, ["F1"], layer="first")
    write_layer(gpkg, ["L1", "L2"], layer="second")
    assert nrf("assess", str(gpkg)).returncode == EXIT_INVALID_INPUT
    out = tmp_path / "r.json"
    assert main(["assess", str(gpkg), "--layer", "second", "--output", str(out)]) == 0
    assert ids_assessed(out) == ["L1", "L2"]
    wrong = nrf("assess", str(gpkg), "--layer", "third")
    assert wrong.returncode == EXIT_INVALID_INPUT
    assert "unknown_layer" in wrong.stderr and "'first', 'second'" in wrong.stderr


def test_crs_states_the_crs_of_a_shapefile_without_prj(tmp_path: Path) -> None:
    shp = write_layer(tmp_path / "noprj.shp", ["P1"], crs=None)
    assert not shp.with_suffix(".prj").exists()
    assert "missing_crs" in nrf("assess", str(shp)).stderr
    out = tmp_path / "r.json"
    assert main(["assess", str(shp), "--crs", "EPSG:27700", "--output", str(out)]) == 0
    assert ids_assessed(out) == ["P1"]


def test_crs_never_overrides_what_a_file_states(tmp_path: Path) -> None:
    done = nrf("assess", str(SMALL_SHP), "--crs", "EPSG:4326")
    assert done.returncode == EXIT_INVALID_INPUT and "conflicting_crs" in done.stderr


def test_an_unsupported_crs_argument_is_a_usage_error() -> None:
    done = nrf("assess", str(SMALL_SHP), "--crs", "EPSG:3857")
    assert done.returncode == EXIT_USAGE and "--crs" in done.stderr


def test_problems_name_the_sites_own_id(tmp_path: Path) -> None:
    sites = tmp_path / "sites.geojson"
    good = {"Name": "x", "Dwel_Cat": "housing", "Source": "t", "Dwellings": 3}
    square = box(X, Y, X + 100, Y + 100)
    sites.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "crs": {"type": "name", "properties": {"name": "EPSG:27700"}},
                "features": [
                    {
                        "type": "Feature",
                        "properties": {**good, "id": "PL/24/0001"},
                        "geometry": square.__geo_interface__,
                    },
                    {
                        "type": "Feature",
                        "properties": {**good, "id": "PL/24/0002", "Dwellings": -1},
                        "geometry": square.__geo_interface__,
                    },
                ],
            }
        )
    )
    done = nrf("assess", str(sites))
    assert done.returncode == EXIT_INVALID_INPUT
    assert "invalid_dwellings: feature 2 (id 'PL/24/0002'): dwellings is -1" in done.stderr


def test_max_sites_and_the_environment_set_the_site_ceiling(tmp_path: Path) -> None:
    three = write_layer(tmp_path / "three.gpkg", ["A", "B", "C"])
    refused = nrf("assess", str(three), "--max-sites", "2")
    assert refused.returncode == EXIT_INVALID_INPUT and "too_many_features" in refused.stderr
    from_env = nrf("assess", str(three), env={"NRF_MAX_SITES_PER_JOB": "2"})
    assert from_env.returncode == EXIT_INVALID_INPUT and "at most 2 " in from_env.stderr
    flag_wins = nrf("assess", str(three), "--max-sites", "3", env={"NRF_MAX_SITES_PER_JOB": "2"})
    assert flag_wins.returncode == 0, flag_wins.stderr
    bad = nrf("assess", str(three), env={"NRF_MAX_SITES_PER_JOB": "lots"})
    assert bad.returncode == EXIT_ERROR and "NRF_MAX_SITES_PER_JOB" in bad.stderr


@pytest.mark.parametrize("copy_prj", [True, False])
def test_a_copied_shapefile_folder_works_with_or_without_crs(
    tmp_path: Path, copy_prj: bool
) -> None:
    folder = tmp_path / "handed-over"
    folder.mkdir()
    for part in BNW.parent.iterdir():
        if part.suffix.lower() != ".prj" or copy_prj:
            shutil.copy(part, folder / part.name)
    extra = [] if copy_prj else ["--crs", "EPSG:27700"]
    out = tmp_path / "r.json"
    assert main(["assess", str(folder), *extra, "--output", str(out)]) == 0
    assert len(ids_assessed(out)) == BNW_SITES


def test_an_id_given_to_two_sites_is_warned_about_and_both_are_quoted(tmp_path: Path) -> None:
    # Issue 30: two sites with one id were accepted without a word.
    sites = tmp_path / "sites.geojson"
    good = {"Name": "x", "Dwel_Cat": "housing", "Source": "t", "Dwellings": 3}
    features = [
        {
            "type": "Feature",
            "properties": {**good, "id": site_id},
            "geometry": box(X + 200 * n, Y, X + 200 * n + 100, Y + 100).__geo_interface__,
        }
        for n, site_id in enumerate(["PL/1", "PL/2", "PL/1"])
    ]
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    sites.write_text(json.dumps({"type": "FeatureCollection", "crs": crs, "features": features}))
    output = tmp_path / "out.json"
    done = nrf("assess", str(sites), "--output", str(output))
    assert done.returncode == 0, done.stderr
    assert "warning: 1 site id(s) are used by more than one site: 'PL/1' (2 sites)" in done.stderr
    assert ids_assessed(output) == ["PL/1", "PL/1", "PL/2"]
    # The file says so too, for whoever reads it without the terminal.
    [warning] = json.loads(output.read_text())["warnings"]
    assert (warning["code"], warning["site_ids"]) == ("repeated_site_ids", ["PL/1"])
