"""A shapefile's or GeoPackage's layer read a page at a time, for a batch too large to hold.

The layer is checked as a whole read checks it (records, tables, rows, CRS) before its first
page; the pages are read in a bounded child and their feature ids must rise, so no site is
read twice or lost between pages.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyogrio
import pyogrio.raw
from attrs import frozen

from nrf.adapters.site_boundaries.boundary_files import (
    OGR_ERRORS,
    check_rows_read,
    checked_before_gdal,
    crs_and_count,
    refuse,
)
from nrf.adapters.site_boundaries.boundary_layers import gpkg_layer
from nrf.adapters.site_boundaries.bounded_read import bounded_call, bounded_items
from nrf.adapters.site_boundaries.geopackage_tables import check_layer_rows
from nrf.adapters.site_boundaries.ogr_rows import LayerRows, check_value_lengths, layer_features
from nrf.adapters.site_boundaries.unreadable_file import gdal_refusal
from nrf.domain.validation import InputLimits, RawFeature


@frozen(kw_only=True)
class OgrLayer:
    """A shapefile's or GeoPackage's layer, checked as a whole read (boundary_files.py) checks
    it before reading, to be read a chunk at a time (``ogr_features``)."""

    path: Path
    layer: str | None
    crs: str
    count: int
    expected: int | None
    encoding: str | None
    fields: bool


def ogr_layer(
    path: Path, limits: InputLimits, *, layer: str | None = None, given_crs: str | None = None
) -> OgrLayer:
    """The layer of a .shp or .gpkg to read, after the same checks as a whole read."""
    suffix = path.suffix.lower()
    expected, encoding = checked_before_gdal(path, limits)

    def gdal_info() -> tuple[str | None, int | None, dict[str, Any]]:  # in a child
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                name = gpkg_layer(path, layer) if suffix == ".gpkg" else None
                counted = check_layer_rows(path, name, limits) if name is not None else expected
                return name, counted, pyogrio.read_info(path, layer=name)
            except OGR_ERRORS as error:
                raise gdal_refusal(error, suffix, limits) from None

    name, expected, info = bounded_call(gdal_info, limits=limits)
    crs, count = crs_and_count(info, given_crs, limits)
    if suffix == ".shp" and expected is not None:
        count = expected  # GDAL counts the records flagged deleted too; they are not sites
    return OgrLayer(
        path=path,
        layer=name,
        crs=crs,
        count=count,
        expected=expected,
        encoding=encoding,
        fields=len(info["fields"]) > 0,
    )


def ogr_features(
    source: OgrLayer,
    limits: InputLimits,
    *,
    chunk: int,
    geometry: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[RawFeature]:
    """The layer's features in order, read ``chunk`` rows at a time, ending with the refusals
    of a whole read (rows lost, none, too many); ``geometry=False`` reads the attributes only
    (of a layer that has any)."""
    with_geometry = geometry or not source.fields
    read, last = 0, -1
    pages = bounded_items(_ogr_pages, source, chunk, with_geometry, limits, limits=limits)
    for page in pages:
        last = check_ids_ascend(page.fids, last)
        yield from layer_features(page, start=read, total=source.count, progress=progress)
        read += len(page.wkbs)
    check_rows_read(read, source.expected, limits)


def check_ids_ascend(fids: Sequence[int], last: int) -> int:
    """Each page's feature ids rise from where the last page ended, so no feature is read
    twice across pages (with the count, none is missed); the last id, for the next page."""
    for fid in fids:
        if fid <= last:
            message = f"feature id {fid} was read again after {last}: the file's features "
            message += "do not read in one order, so sites would be lost or doubled; "
            message += "export it again"
            raise refuse("source_corrupt", message)
        last = fid
    return last


def _ogr_pages(
    source: OgrLayer, chunk: int, with_geometry: bool, limits: InputLimits
) -> Iterator[LayerRows]:
    """The layer's rows ``chunk`` at a time, as GDAL reads them (run in a bounded child).

    GDAL skips a GeoPackage's rows but a shapefile's records, deleted ones included (its
    driver positions by record number), so a shapefile's next page starts after the last
    record read, not after as many records as rows were read: else a deleted record makes
    the pages overlap by one, one site is read twice and the last one never."""
    suffix = source.path.suffix.lower()
    read = skip = 0
    while True:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                meta, fids, wkbs, columns = pyogrio.raw.read(
                    source.path,
                    layer=source.layer,
                    encoding=source.encoding,
                    skip_features=skip,
                    max_features=chunk,
                    read_geometry=with_geometry,
                    return_fids=True,
                )
            except OGR_ERRORS as error:
                raise gdal_refusal(error, suffix, limits) from None
        rows = len(fids)
        names = [str(n) for n in meta["fields"]]
        check_value_lengths(names, columns)
        shapes = wkbs if wkbs is not None else [None] * rows
        ids = [int(fid) for fid in fids]
        yield LayerRows(names=names, columns=columns, wkbs=shapes, crs=source.crs, fids=ids)
        read += rows
        skip = ids[-1] + 1 if suffix == ".shp" and ids else skip + rows
        if rows < chunk or read >= source.count:
            break
