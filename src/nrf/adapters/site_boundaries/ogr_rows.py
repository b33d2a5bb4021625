"""GDAL's rows (field arrays and WKB) as raw features: 2-D, in EPSG:27700, numbered from 1.

A file's layers are read in order and numbered as one list, so a KML's folders read as one
boundary file; an unreadable geometry or one that cannot be reprojected becomes a problem of
its feature, never an exception, so every feature's problems are reported together.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import shapely
from attrs import frozen

from nrf.adapters.site_boundaries.boundary_crs import to_bng
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.validation import RawFeature


@frozen(kw_only=True)
class LayerRows:
    """One layer as GDAL read it: field names, one array a field, WKB a row, its CRS."""

    names: list[str]
    columns: Sequence[Any]
    wkbs: Sequence[bytes | None]
    crs: str
    fids: Sequence[int] = ()  # GDAL's feature ids, where the read asked for them


# The longest attribute value any column may hold: a site's text is at most 500 characters,
# and an unused 45 MB column was read and copied out of the reading child in full (92 MB).
MAX_VALUE_BYTES = 64 * 1024


def check_value_lengths(names: Sequence[str], columns: Sequence[Any]) -> None:
    """In the reading child, before the rows cross to the parent: no text or binary value of
    any column, used or not, is longer than ``MAX_VALUE_BYTES`` (counted in characters)."""
    for name, column in zip(names, columns, strict=True):
        if getattr(column, "dtype", None) is None or column.dtype.kind not in "OSU":
            continue  # numbers and dates have a fixed size
        longest = max((len(v) for v in column if isinstance(v, str | bytes)), default=0)
        if longest > MAX_VALUE_BYTES:
            shown = repr(name) if len(name) <= 60 else repr(name[:57] + "...")
            message = f"the column {shown} holds a value of {longest:,} characters; at most "
            message += f"{MAX_VALUE_BYTES:,} are allowed in any column (a site's text is at "
            message += "most 500 characters)"
            raise InvalidInput([Problem(code="invalid_text", message=message)])


def raw_features(
    layers: Sequence[LayerRows],
    *,
    drop_nulls: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> list[RawFeature]:
    """Every row of every layer; ``drop_nulls`` leaves out empty fields (KML's many unused
    ones, so an empty ``id`` field reads as no id column, not as a site without an id)."""
    total = sum(len(layer.wkbs) for layer in layers)
    features: list[RawFeature] = []
    for layer in layers:
        features.extend(
            layer_features(
                layer, start=len(features), total=total, drop_nulls=drop_nulls, progress=progress
            )
        )
    return features


def layer_features(
    layer: LayerRows,
    *,
    start: int,
    total: int,
    drop_nulls: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[RawFeature]:
    """One layer's rows (or a chunk of them) as features numbered on from ``start``."""
    values = [[None if _is_nan(v) else v for v in column.tolist()] for column in layer.columns]
    for row, wkb in enumerate(layer.wkbs):
        index = start + row + 1
        pairs = zip(layer.names, values, strict=True)
        properties = {name: column[row] for name, column in pairs}
        if drop_nulls:
            properties = {k: v for k, v in properties.items() if _present(v)}
        geometry, problems = from_wkb(wkb, index)
        if not problems:
            geometry, problems = to_bng(geometry, layer.crs, index)
        yield RawFeature(
            index=index,
            properties=properties,
            geometry=geometry,
            crs=layer.crs,
            problems=problems,
        )
        if progress is not None:
            progress(index, total)


def from_wkb(wkb: bytes | None, index: int) -> tuple[shapely.Geometry | None, tuple[Problem, ...]]:
    """The 2-D geometry of a WKB, or the problem that stopped GEOS building it."""
    if wkb is None:
        return None, ()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NaN coordinates warn; the validator reports them
            return shapely.force_2d(shapely.from_wkb(wkb)), ()
    except (shapely.errors.GEOSException, ValueError) as error:
        if "closed linestring" in str(error):  # GEOS: "Points of LinearRing do not form a ..."
            message = (
                f"feature {index}: a ring is not closed (its last point must repeat its first)"
            )
            code = "unclosed_ring"
        else:
            message = f"feature {index}: geometry is not a valid polygon ({error})"
            code = "invalid_geometry"
        return None, (Problem(code=code, message=message, feature=index, field="geometry"),)


def _is_nan(value: object) -> bool:
    # GDAL files cannot hold NaN attributes: a NaN here is a null that numpy could not keep.
    return isinstance(value, float) and math.isnan(value)


def _present(value: object) -> bool:
    text = str(value)
    return value is not None and text not in ("", "NaT")
