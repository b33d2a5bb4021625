"""Planners' own files (issue 19): drawn by hand, their own column names, Windows-1252 text
without a .cpg, two shapefiles in one zip; in `nrf assess`, the API and the form."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import falcon.testing
import numpy as np
import pyogrio.raw
import pytest
from shapely.geometry import box

from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes, read_boundary_file
from nrf.domain.errors import InvalidInput
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT, EXIT_OK, EXIT_USAGE
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.reference import STRIP_ORIGIN

# Inside the bundled synthetic Norfolk bundle (as tests/integration/test_cli_inputs.py).
NORFOLK = (620_000, 310_000)


def ring(x: float, y: float) -> list[list[float]]:
    return [[x, y], [x + 100, y], [x + 100, y + 100], [x, y + 100], [x, y]]


def council_geojson(
    path: Path, properties: list[dict[str, object]], at: tuple[float, float]
) -> Path:
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    features = [
        {
            "type": "Feature",
            "properties": p,
            "geometry": {"type": "Polygon", "coordinates": [ring(at[0] + 200 * i, at[1])]},
        }
        for i, p in enumerate(properties)
    ]
    path.write_text(json.dumps({"type": "FeatureCollection", "crs": crs, "features": features}))
    return path


def test_nrf_assess_maps_the_councils_column_names(tmp_path: Path) -> None:
    sites = [{"Site_Ref": "HOU-7", "No_Dwellin": 12}, {"Site_Ref": "HOU-8", "No_Dwellin": 3}]
    path = council_geojson(tmp_path / "council.geojson", sites, NORFOLK)
    out = tmp_path / "out.json"
    args = ["assess", str(path), "--columns", "id=Site_Ref,dwellings=No_Dwellin"]
    assert main([*args, "--output", str(out)]) == EXIT_OK
    text = out.read_text()
    # The ids are the file's Site_Ref, not the positions 1 and 2.
    assert '"HOU-7"' in text and '"HOU-8"' in text


def test_a_mapped_column_the_file_lacks_lists_the_files_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = council_geojson(tmp_path / "c.geojson", [{"Site_Ref": "a", "Units": 1}], NORFOLK)
    assert main(["assess", str(path), "--columns", "dwellings=No_Dwellin"]) == EXIT_INVALID_INPUT
    err = capsys.readouterr().err
    assert "no column 'No_Dwellin' (given for dwellings)" in err
    assert "its columns are 'Site_Ref', 'Units'" in err
    with pytest.raises(SystemExit) as usage:
        main(["assess", str(path), "--columns", "dwellings"])
    assert usage.value.code == EXIT_USAGE


def test_two_outputs_are_refused_not_one_silently_dropped(tmp_path: Path) -> None:
    path = council_geojson(tmp_path / "c.geojson", [{"dwellings": 1}], NORFOLK)
    outputs = ["--output", str(tmp_path / "a.csv"), "--output", str(tmp_path / "a.html")]
    with pytest.raises(SystemExit) as usage:
        main(["assess", str(path), *outputs])
    assert usage.value.code == EXIT_USAGE
    assert list(tmp_path.iterdir()) == [path]


def write_shapefile(folder: Path, stem: str, names: list[str], encoding: str | None) -> Path:
    folder.mkdir(exist_ok=True)
    x, y = STRIP_ORIGIN
    squares = [box(x + 200 * i, y, x + 200 * i + 100, y + 100).wkb for i in range(len(names))]
    path = folder / f"{stem}.shp"
    pyogrio.raw.write(
        path,
        np.array(squares, dtype=object),
        [np.array(names, dtype=object), np.array([10] * len(names))],
        fields=["name", "dwellings"],
        geometry_type="Polygon",
        crs="EPSG:27700",
        encoding=encoding,
    )
    return path


def without_declared_encoding(shp: Path) -> Path:
    """As older tools save it: no .cpg, and the .dbf's language byte (29) left 0."""
    shp.with_suffix(".cpg").unlink(missing_ok=True)
    dbf = shp.with_suffix(".dbf")
    data = bytearray(dbf.read_bytes())
    data[29] = 0
    dbf.write_bytes(bytes(data))
    return shp


@pytest.mark.parametrize("encoding", ["cp1252", "utf-8"])
def test_text_without_a_cpg_is_read_as_written(tmp_path: Path, encoding: str) -> None:
    # "’" is 0x92 in Windows-1252 (Latin-1 would read a control character, U+0092) and
    # E2 80 99 in UTF-8 (Latin-1 would read "â\x80\x99").
    shp = without_declared_encoding(write_shapefile(tmp_path, "s", ["Hall’s Farm – é"], encoding))
    assert not shp.with_suffix(".cpg").exists()
    [site] = read_boundary_file(shp)
    assert site.properties["name"] == "Hall’s Farm – é"


def two_shapefiles_zip(tmp_path: Path) -> bytes:
    write_shapefile(tmp_path / "a", "north", ["N"], None)
    write_shapefile(tmp_path / "b", "south", ["S1", "S2"], None)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for part in sorted((tmp_path / "a").iterdir()) + sorted((tmp_path / "b").iterdir()):
            archive.write(part, f"export/{part.name}")
    return buffer.getvalue()


def test_a_zip_of_two_shapefiles_is_read_by_the_one_the_layer_names(tmp_path: Path) -> None:
    data = two_shapefiles_zip(tmp_path)
    path = tmp_path / "both.zip"
    path.write_bytes(data)
    assert [f.properties["name"] for f in read_boundary_file(path, layer="south")] == ["S1", "S2"]
    assert [f.properties["name"] for f in read_boundary_bytes(data, "b.zip", layer="North")] == [
        "N"
    ]
    for read in (lambda: read_boundary_file(path), lambda: read_boundary_file(path, layer="x")):
        with pytest.raises(InvalidInput) as caught:
            read()
        assert caught.value.codes in (["zip_ambiguous"], ["unknown_layer"])
        assert "--layer" not in caught.value.message and "has one layer" not in caught.value.message
    assert "'north', 'south'" in caught.value.message


def client() -> falcon.testing.TestClient:
    return anonymous_client()


def test_the_form_takes_a_layer_and_a_column_mapping(tmp_path: Path) -> None:
    data = two_shapefiles_zip(tmp_path)
    fields = {"layer": "south", "columns": "id=name"}
    body, content_type = multipart({"boundary": ("both.zip", data)}, fields)
    answer = client().simulate_post("/v1/quotes", body=body, headers={"Content-Type": content_type})
    assert answer.status_code == 200, answer.text
    # Both sites of south.shp, each with its name as id (the mapping), none of north.shp.
    assert sorted(s["site"]["id"] for s in answer.json["sites"]) == ["S1", "S2"]
    assert '"N"' not in answer.text


def test_the_forms_problem_page_names_the_code_once(tmp_path: Path) -> None:
    body, content_type = multipart({"boundary": ("both.zip", two_shapefiles_zip(tmp_path))}, {})
    answer = client().simulate_post(
        "/", body=body, headers={"Content-Type": content_type, "Accept": "text/html"}
    )
    assert answer.status_code == 422
    assert "zip_ambiguous</code>: the zip holds" in answer.text
    assert "zip_ambiguous: zip_ambiguous" not in answer.text
    assert answer.text.count("zip_ambiguous") == 2  # the heading's code and the list's code
