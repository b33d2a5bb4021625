"""Read red-line boundary files (GeoJSON, shapefile, zip, GeoPackage) into raw features."""

from __future__ import annotations

import io
import math
import tempfile
import warnings
from pathlib import Path

import pyogrio
import pyogrio.raw
import shapely

from nrf.adapters.site_boundaries.boundary_crs import accepted_crs, to_bng
from nrf.adapters.site_boundaries.boundary_geojson import features_from_geojson, read_geojson_bytes
from nrf.adapters.site_boundaries.boundary_zip import extracted_boundary
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature

__all__ = [
    "SUPPORTED_SUFFIXES",
    "features_from_geojson",
    "read_boundary_bytes",
    "read_boundary_file",
]

SUPPORTED_SUFFIXES = (".geojson", ".json", ".shp", ".zip", ".gpkg")
_SHAPEFILE_PARTS = (".shx", ".dbf")
_POLYGON_TYPES = ("Polygon", "MultiPolygon")
_OGR_ERRORS = (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError, RuntimeError, OSError)


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(code, message)])


def read_boundary_file(path: str | Path, limits: InputLimits = DEFAULT_LIMITS) -> list[RawFeature]:
    """Every feature of a boundary file, in EPSG:27700; file-level problems raise InvalidInput."""
    path = Path(path)
    if not path.is_file():
        raise _refuse("file_not_found", f"there is no file at {str(path)!r}")
    suffix = _checked_suffix(path.name)
    parts = [path] + (_sidecars(path) if suffix == ".shp" else [])
    _check_size(sum(part.stat().st_size for part in parts), limits)
    if suffix == ".zip":
        with extracted_boundary(path, limits) as inner:
            return _read_local(inner, limits)
    return _read_local(path, limits)


def read_boundary_bytes(
    data: bytes, filename: str, limits: InputLimits = DEFAULT_LIMITS
) -> list[RawFeature]:
    """Every feature of a boundary file held as bytes (from S3); ``filename`` gives its type."""
    suffix = _checked_suffix(filename)
    _check_size(len(data), limits)
    if suffix == ".shp":
        message = "a bare .shp cannot be read without its .shx and .dbf; send them zipped together"
        raise _refuse("missing_shapefile_parts", message)
    if suffix == ".zip":
        with extracted_boundary(io.BytesIO(data), limits) as inner:
            return _read_local(inner, limits)
    if suffix == ".gpkg":
        with tempfile.TemporaryDirectory(prefix="nrf-boundary-") as temp:
            path = Path(temp) / "boundary.gpkg"
            path.write_bytes(data)
            return _read_local(path, limits)
    return read_geojson_bytes(data, limits)


def _checked_suffix(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        message = f"{name!r} is not a supported boundary file; use {', '.join(SUPPORTED_SUFFIXES)}"
        raise _refuse("unsupported_file_type", message)
    return suffix


def _check_size(size: int, limits: InputLimits) -> None:
    if size > limits.max_file_bytes:
        message = f"the file is {size:,} bytes; at most {limits.max_file_bytes:,} are allowed"
        raise _refuse("file_too_large", message)


def _sidecars(shp: Path) -> list[Path]:
    """The .shx and .dbf beside a .shp (any letter case), or missing_shapefile_parts."""
    found = {p.suffix.lower(): p for p in shp.parent.iterdir() if p.stem == shp.stem}
    missing = [suffix for suffix in _SHAPEFILE_PARTS if suffix not in found]
    if missing:
        message = f"the shapefile {shp.name!r} has no {' or '.join(missing)} file beside it"
        raise _refuse("missing_shapefile_parts", message)
    return [found[suffix] for suffix in _SHAPEFILE_PARTS]


def _read_local(path: Path, limits: InputLimits) -> list[RawFeature]:
    suffix = path.suffix.lower()
    if suffix in (".geojson", ".json"):
        _check_size(path.stat().st_size, limits)  # a zip's inner file too, not only the zip
        return read_geojson_bytes(path.read_bytes(), limits)
    if suffix == ".shp":
        _sidecars(path)
    # GDAL warns about what it tolerates (unclosed rings...); the validator reports those itself.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            layer = _gpkg_layer(path) if suffix == ".gpkg" else None
            info = pyogrio.read_info(path, layer=layer)
            crs = accepted_crs(info["crs"])
            count = int(info["features"])
            if count > limits.max_features:
                message = f"the file has {count:,} features; at most {limits.max_features:,}"
                raise _refuse("too_many_features", message + " are allowed")
            meta, _, wkbs, columns = pyogrio.raw.read(path, layer=layer)
        except _OGR_ERRORS as error:
            raise _refuse("unreadable_file", f"the file cannot be read ({error})") from None
    if len(wkbs) == 0:
        raise _refuse("empty_file", "the file has no features")
    names = [str(name) for name in meta["fields"]]
    values = [[None if _is_nan(v) else v for v in column.tolist()] for column in columns]
    features = []
    for row, wkb in enumerate(wkbs):
        index = row + 1
        properties = {name: column[row] for name, column in zip(names, values, strict=True)}
        geometry, problems = _from_wkb(wkb, index)
        if not problems:
            geometry, problems = to_bng(geometry, crs, index)
        features.append(RawFeature(index, properties, geometry, crs, problems))
    return features


def _gpkg_layer(path: Path) -> str:
    """The one layer to read: the only layer, or the only polygon layer among several."""
    layers = [(str(name), str(kind)) for name, kind in pyogrio.list_layers(path)]
    if len(layers) == 1:
        return layers[0][0]
    polygons = [name for name, kind in layers if kind.split(" ")[0] in _POLYGON_TYPES]
    if len(polygons) == 1:
        return polygons[0]
    if not layers:
        raise _refuse("empty_file", "the GeoPackage has no layers")
    names = ", ".join(repr(name) for name, _ in layers)
    message = f"the GeoPackage has {len(polygons)} polygon layers among {names}; send one"
    raise _refuse("ambiguous_layer", message)


def _from_wkb(wkb: bytes | None, index: int) -> tuple[shapely.Geometry | None, tuple[Problem, ...]]:
    if wkb is None:
        return None, ()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NaN coordinates warn; the validator reports them
            return shapely.force_2d(shapely.from_wkb(wkb)), ()
    except (shapely.errors.GEOSException, ValueError) as error:
        message = f"feature {index}: geometry is not a valid polygon ({error})"
        return None, (Problem("invalid_geometry", message, index, "geometry"),)


def _is_nan(value: object) -> bool:
    # GDAL files cannot hold NaN attributes: a NaN here is a null that numpy could not keep.
    return isinstance(value, float) and math.isnan(value)
