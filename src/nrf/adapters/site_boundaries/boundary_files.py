"""Read red-line boundary files (GeoJSON, shapefile, zip, GeoPackage) into raw features."""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pyogrio
import pyogrio.raw

from nrf.adapters.site_boundaries.boundary_crs import WGS84, accepted_crs
from nrf.adapters.site_boundaries.boundary_geojson import features_from_geojson, read_geojson_bytes
from nrf.adapters.site_boundaries.boundary_kml import kml_layers, screen_kml
from nrf.adapters.site_boundaries.boundary_layers import gpkg_layer, shapefile_in_folder
from nrf.adapters.site_boundaries.boundary_zip import extracted_boundary, safe_filename
from nrf.adapters.site_boundaries.bounded_read import bounded_call
from nrf.adapters.site_boundaries.geopackage_tables import check_layer_rows, check_plain_tables
from nrf.adapters.site_boundaries.ogr_rows import (
    LayerRows,
    check_value_lengths,
    raw_features,
)
from nrf.adapters.site_boundaries.read_folders import read_folder
from nrf.adapters.site_boundaries.shapefile_records import (
    check_shapefile_records,
    undeclared_encoding,
)
from nrf.adapters.site_boundaries.unreadable_file import gdal_refusal
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature

__all__ = [
    "SUPPORTED_SUFFIXES",
    "features_from_geojson",
    "read_boundary_bytes",
    "read_boundary_file",
]

SUPPORTED_SUFFIXES = (".geojson", ".json", ".shp", ".zip", ".gpkg", ".kml", ".kmz")
_SHAPEFILE_PARTS = (".shx", ".dbf")
_LAYERED = (".gpkg", ".kml", ".kmz", ".zip")  # a file whose layer may be chosen by name
OGR_ERRORS = (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError, RuntimeError, OSError)


def refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(code=code, message=message)])


def read_boundary_file(
    path: str | Path,
    limits: InputLimits = DEFAULT_LIMITS,
    *,
    layer: str | None = None,
    crs: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[RawFeature]:
    """Every feature of a boundary file, in EPSG:27700; file-level problems raise InvalidInput.

    ``path`` may be a shapefile's folder. ``layer`` picks a GeoPackage layer (or a shapefile
    of a folder); ``crs`` is the CRS of a file that does not say (a .shp without .prj, a
    GeoJSON in metres): a file that says another one is refused, never reinterpreted.
    """
    path, layer, given = checked_file(path, limits, layer=layer, crs=crs)
    if path.suffix.lower() in (".zip", ".kmz"):
        with extracted_boundary(path, limits, layer) as inner:
            inner_layer = layer if inner.suffix in (".gpkg", ".kml") else None
            return _read_local(inner, limits, layer=inner_layer, given_crs=given, progress=progress)
    return _read_local(path, limits, layer=layer, given_crs=given, progress=progress)


def checked_file(
    path: str | Path, limits: InputLimits, *, layer: str | None, crs: str | None
) -> tuple[Path, str | None, str | None]:
    """The file to read (a folder's shapefile), its layer and the given CRS, once every
    check that needs no reading has passed (exists, type, layer, size, CRS name)."""
    path = Path(path)
    if path.is_dir():
        path = shapefile_in_folder(path, layer)
        layer = None
    if not path.is_file():
        raise refuse("file_not_found", f"there is no file at {str(path)!r}")
    suffix = _checked_suffix(path.name)
    if layer is not None and suffix not in _LAYERED:
        message = f"a layer ({layer[:60]!r}) applies to a GeoPackage, a KML, a zip or a folder "
        raise refuse("unknown_layer", message + f"of shapefiles; {path.name!r} has one layer")
    parts = [path] + (sidecars(path) if suffix == ".shp" else [])
    check_size(sum(part.stat().st_size for part in parts), limits)
    return path, layer, accepted_crs(crs) if crs is not None else None


def read_boundary_bytes(
    data: bytes, filename: str, limits: InputLimits = DEFAULT_LIMITS, *, layer: str | None = None
) -> list[RawFeature]:
    """Every feature of a boundary file held as bytes (from S3 or an upload); ``filename`` gives
    its type and ``layer`` picks one layer of a file (or boundary file of a zip) with several."""
    if not safe_filename(filename):
        message = "the file's name holds control characters or is too long; rename it"
        raise refuse("unsafe_filename", message)
    suffix = _checked_suffix(filename)
    check_size(len(data), limits)
    if suffix == ".shp":
        message = "a bare .shp cannot be read without its .shx and .dbf; send them zipped together"
        raise refuse("missing_shapefile_parts", message)
    if layer is not None and suffix not in _LAYERED:
        message = f"a layer ({layer[:60]!r}) applies to a GeoPackage, a KML or a zip; "
        raise refuse("unknown_layer", message + f"a {suffix} file has one layer")
    if suffix in (".zip", ".kmz"):
        with extracted_boundary(io.BytesIO(data), limits, layer) as inner:
            inner_layer = layer if inner.suffix in (".gpkg", ".kml") else None
            return _read_local(inner, limits, layer=inner_layer)
    if suffix in (".gpkg", ".kml"):
        with read_folder() as temp:
            path = temp / f"boundary{suffix}"
            path.write_bytes(data)
            return _read_local(path, limits, layer=layer)
    return read_geojson_bytes(data, limits)


def _checked_suffix(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        message = f"{name!r} is not a supported boundary file; use {', '.join(SUPPORTED_SUFFIXES)}"
        raise refuse("unsupported_file_type", message)
    return suffix


def check_size(size: int, limits: InputLimits) -> None:
    if size > limits.max_file_bytes:
        message = f"the file is {size:,} bytes; at most {limits.max_file_bytes:,} are allowed"
        raise refuse("file_too_large", message)


def checked_before_gdal(path: Path, limits: InputLimits) -> tuple[int | None, str | None]:
    """A .shp's record count (its parts agreeing) and undeclared .dbf encoding, or a .gpkg's
    tables bounded, before GDAL opens either: (records, encoding), each None if not known."""
    suffix = path.suffix.lower()
    if suffix == ".shp":
        shx, dbf = sidecars(path)
        return check_shapefile_records(path, shx, dbf, limits), undeclared_encoding(dbf)
    if suffix == ".gpkg":
        check_plain_tables(path, limits)
    return None, None


def sidecars(shp: Path) -> list[Path]:
    """The .shx and .dbf beside a .shp (any letter case), or missing_shapefile_parts; two of
    one kind (``sites.shx`` and ``sites.SHX``) are source_corrupt: GDAL reads one, and which
    one the checks read would depend on the folder's listing order."""
    found: dict[str, Path] = {}
    for part in sorted(p for p in shp.parent.iterdir() if p.stem == shp.stem):
        kind = part.suffix.lower()
        if kind in _SHAPEFILE_PARTS and kind in found:
            message = f"the shapefile {shp.name!r} has two {kind} files beside it "
            message += f"({found[kind].name!r} and {part.name!r}); keep the one that belongs"
            raise refuse("source_corrupt", message)
        found[kind] = part
    missing = [suffix for suffix in _SHAPEFILE_PARTS if suffix not in found]
    if missing:
        message = f"the shapefile {shp.name!r} has no {' or '.join(missing)} file beside it"
        raise refuse("missing_shapefile_parts", message)
    return [found[suffix] for suffix in _SHAPEFILE_PARTS]


def _read_local(
    path: Path,
    limits: InputLimits,
    *,
    layer: str | None = None,
    given_crs: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[RawFeature]:
    suffix = path.suffix.lower()
    if suffix in (".geojson", ".json"):
        check_size(path.stat().st_size, limits)  # a zip's inner file too, not only the zip
        features = read_geojson_bytes(
            path.read_bytes(), limits, default_crs=given_crs or WGS84, progress=progress
        )
        check_given_crs(features[0].crs if features else None, given_crs)
        return features
    layers: list[str | None] = [None]
    expected, encoding = checked_before_gdal(path, limits)
    if suffix == ".kml":
        screen_kml(path, limits)

    def gdal_reads() -> tuple[int | None, list[tuple[dict[str, Any], LayerRows]]]:  # in a child
        # GDAL warns about what it tolerates (unclosed rings...); the validator reports those.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                names = layers
                counted = expected
                if suffix == ".gpkg":
                    names = [gpkg_layer(path, layer)]
                    counted = check_layer_rows(path, str(names[0]), limits)
                elif suffix == ".kml":
                    names = list(kml_layers(path, layer))
                return counted, [_read_layer(path, name, limits, encoding) for name in names]
            except OGR_ERRORS as error:
                raise gdal_refusal(error, suffix, limits) from None

    expected, layers_read = bounded_call(gdal_reads, limits=limits)
    read = [
        attrs.evolve(rows, crs=crs_and_count(info, given_crs, limits)[0])
        for info, rows in layers_read
    ]
    check_rows_read(sum(len(layer_rows.wkbs) for layer_rows in read), expected, limits)
    return raw_features(read, drop_nulls=suffix == ".kml", progress=progress)


def _read_layer(
    path: Path, layer: str | None, limits: InputLimits, encoding: str | None
) -> tuple[dict[str, Any], LayerRows]:
    """A layer's info and rows as GDAL reads them, in the reading child: too many features are
    refused before the rows are read; the CRS is left to the parent, whose PROJ is warm."""
    info = pyogrio.read_info(path, layer=layer)
    _too_many(int(info["features"]), limits)
    meta, _, wkbs, columns = pyogrio.raw.read(path, layer=layer, encoding=encoding)
    names = [str(n) for n in meta["fields"]]
    check_value_lengths(names, columns)
    return info, LayerRows(names=names, columns=columns, wkbs=wkbs, crs="")


def _too_many(count: int, limits: InputLimits) -> None:
    if count > limits.max_features:
        message = f"the file has {count:,} features; at most {limits.max_features:,}"
        raise refuse("too_many_features", message + " are allowed")


def crs_and_count(info: dict[str, Any], given: str | None, limits: InputLimits) -> tuple[str, int]:
    """The layer's CRS (a stated one kept, ``given`` only for none) and its feature count."""
    if info["crs"] is not None:
        check_given_crs(accepted_crs(info["crs"]), given)
    crs = given if info["crs"] is None and given else accepted_crs(info["crs"])
    count = int(info["features"])
    _too_many(count, limits)
    return crs, count


def check_rows_read(rows: int, expected: int | None, limits: InputLimits) -> None:
    """After reading: every counted row read (else sites would be lost), some, not too many."""
    if expected is not None and rows != expected:
        message = f"the file holds {expected:,} features but only {rows:,} could be read, "
        raise refuse("source_corrupt", message + "so sites would be lost; export it again")
    if rows == 0:
        raise refuse("empty_file", "the file has no features")
    _too_many(rows, limits)


def check_given_crs(declared: str | None, given: str | None) -> None:
    """A file that states its CRS keeps it: ``--crs`` naming another one is refused."""
    if given is not None and declared is not None and declared != given:
        message = f"the file says its CRS is {declared}, but {given} was given; "
        message += "leave out --crs for a file that states its CRS"
        raise refuse("conflicting_crs", message)
