"""A zipped layer's member: the zip's one shapefile, or the one the layer names; never a guess."""

from __future__ import annotations

import zipfile
from pathlib import Path

from nrf.bundles.zip_member import shapefile_member


def _zip(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(name, b"")
    return path


def test_the_one_shapefile_in_a_folder_of_the_zip_is_the_member(tmp_path: Path) -> None:
    parts = [f"LPA/LPA_National.{s}" for s in ("shp", "shx", "dbf", "prj")]
    # A zip made on a Mac carries AppleDouble copies under __MACOSX/: not shapefiles.
    archive = _zip(tmp_path / "LPA.zip", [*parts, "__MACOSX/LPA/._LPA_National.shp"])
    assert shapefile_member(archive, None) == "LPA/LPA_National.shp"


def test_the_layer_picks_one_of_several_and_none_fits_otherwise(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "two.zip", ["a/North.shp", "a/North.dbf", "b/South.SHP"])
    assert shapefile_member(archive, "south") == "b/South.SHP"
    assert shapefile_member(archive, None) is None  # two fit: which GDAL read is not ours to say
    assert shapefile_member(archive, "East") is None


def test_a_file_that_is_no_zip_has_no_member(tmp_path: Path) -> None:
    page = tmp_path / "LPA.zip"
    page.write_bytes(b"<html>502 Bad Gateway</html>")
    assert shapefile_member(page, None) is None
    assert shapefile_member(tmp_path / "missing.zip", None) is None
