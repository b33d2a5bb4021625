"""A boundary file opened for reading as often as needed, a chunk of features at a time.

`nrf assess` of a national file reads it twice (which columns exist, then every problem,
spooling the checked sites) instead of holding 1,000,000 features: a shapefile or GeoPackage
``CHUNK`` rows a read (each pass by one bounded child of GDAL's, ``bounded_read``, the read
deadline applying to each chunk), a large GeoJSON a feature at a time (``geojson_scanner``).
A GeoJSON under ``STREAM_BYTES``, and a KML, are read whole, once, exactly as
``read_boundary_file`` reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from attrs import frozen

from nrf.adapters.site_boundaries import geojson_scanner
from nrf.adapters.site_boundaries.boundary_crs import WGS84, geojson_crs
from nrf.adapters.site_boundaries.boundary_files import (
    check_given_crs,
    check_size,
    checked_file,
    read_boundary_file,
)
from nrf.adapters.site_boundaries.boundary_geojson import (
    check_structure,
    feature_stream,
    read_geojson_bytes,
)
from nrf.adapters.site_boundaries.boundary_zip import extracted_boundary
from nrf.adapters.site_boundaries.ogr_pages import ogr_features, ogr_layer
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits, RawFeature

CHUNK = 1000  # rows per read of a shapefile or GeoPackage
STREAM_BYTES = 16 * 1024 * 1024  # a GeoJSON this large is read a feature at a time
Progress = Callable[[int, int], None]


class BoundarySource:
    """``count`` features, read afresh by each call of ``features``."""

    def __init__(self, count: int, read: Callable[[bool, Progress | None], Iterator[RawFeature]]):
        self.count = count
        self._read = read

    def features(
        self, *, geometry: bool = True, progress: Progress | None = None
    ) -> Iterator[RawFeature]:
        """Every feature in file order; ``geometry=False`` reads the attributes only."""
        return self._read(geometry, progress)


@frozen
class _Collection:
    """What the walk of a large GeoJSON found besides its features."""

    crs: str
    count: int


@contextmanager
def open_boundary_file(
    path: str | Path,
    limits: InputLimits = DEFAULT_LIMITS,
    *,
    layer: str | None = None,
    crs: str | None = None,
    stream_bytes: int | None = None,
) -> Iterator[BoundarySource]:
    """The file as a BoundarySource, with the checks and errors of ``read_boundary_file``;
    a GeoJSON of ``stream_bytes`` (default ``STREAM_BYTES``) or more is read as it goes."""
    path, layer, given = checked_file(path, limits, layer=layer, crs=crs)
    with ExitStack() as stack:
        if path.suffix.lower() in (".zip", ".kmz"):
            path = stack.enter_context(extracted_boundary(path, limits, layer))
            layer = layer if path.suffix in (".gpkg", ".kml") else None
        threshold = STREAM_BYTES if stream_bytes is None else stream_bytes
        yield _source(path, limits, layer, given, threshold)


def _source(
    path: Path, limits: InputLimits, layer: str | None, given: str | None, stream_bytes: int
) -> BoundarySource:
    if path.suffix.lower() in (".geojson", ".json"):
        check_size(path.stat().st_size, limits)
        if path.stat().st_size < stream_bytes:
            whole = read_geojson_bytes(path.read_bytes(), limits, default_crs=given or WGS84)
            check_given_crs(whole[0].crs if whole else None, given)
            return BoundarySource(len(whole), lambda geometry, progress: _replay(whole, progress))
        found = _walk(path, limits, given or WGS84)
        check_given_crs(found.crs, given)

        def read_geojson(geometry: bool, progress: Progress | None) -> Iterator[RawFeature]:
            items = geojson_scanner.items(path)
            return feature_stream(items, found.count, found.crs, progress, geometry=geometry)

        return BoundarySource(found.count, read_geojson)
    if path.suffix.lower() == ".kml":  # a KML is a planner's few sites: read whole, once
        whole = read_boundary_file(path, limits, layer=layer, crs=given)
        return BoundarySource(len(whole), lambda geometry, progress: _replay(whole, progress))
    layer_to_read = ogr_layer(path, limits, layer=layer, given_crs=given)

    def read_ogr(geometry: bool, progress: Progress | None) -> Iterator[RawFeature]:
        return ogr_features(
            layer_to_read, limits, chunk=CHUNK, geometry=geometry, progress=progress
        )

    return BoundarySource(layer_to_read.count, read_ogr)


def _replay(features: Sequence[RawFeature], progress: Progress | None) -> Iterator[RawFeature]:
    for done, feature in enumerate(features, start=1):
        yield feature
        if progress is not None:
            progress(done, len(features))


def _walk(path: Path, limits: InputLimits, default_crs: str) -> _Collection:
    """One pass over a large GeoJSON: its CRS, its feature count and the same refusals as a
    whole parse (too complex, not a FeatureCollection, empty, too many features)."""
    counted = (0, 0)
    count = 0

    def on_chunk(text: str) -> None:
        nonlocal counted
        counted = check_structure(text, limits, counted)

    def on_item(_: object) -> None:
        nonlocal count
        count += 1

    members = geojson_scanner.walk(path, on_item, on_chunk=on_chunk)
    if members.get("type") != "FeatureCollection" or not isinstance(members.get("features"), list):
        message = "a GeoJSON this large must be a FeatureCollection with a features list"
        raise InvalidInput([Problem(code="unreadable_file", message=message)])
    if not count:
        raise InvalidInput([Problem(code="empty_file", message="the GeoJSON has no features")])
    if count > limits.max_features:
        message = f"the file has {count:,} features; at most {limits.max_features:,} are allowed"
        raise InvalidInput([Problem(code="too_many_features", message=message)])
    return _Collection(crs=geojson_crs(members, default_crs), count=count)
