"""Write delivered layers into the bundle being built, keeping each feature's source key.

Every output feature carries ``source_fid`` (and the coefficient layer its ``cromeid``), so any
figure can be traced to the delivered row. Coefficient text that is not a number becomes NULL,
as Defra's own loader read it, and each such value is listed as a cleaning, naming the column
as the delivered file spells it, never the bundle's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import shapely

from nrf.adapters.boundary_data import geopackage_cells
from nrf.bundles.cleaning import fits_integer, stripped
from nrf.bundles.coefficient_source import CoefficientSource
from nrf.bundles.flatten import flattened
from nrf.bundles.geopackage_writer import GeoPackageWriter
from nrf.bundles.numeric_text import parse_number
from nrf.bundles.qc.geometry import decode
from nrf.bundles.qc.report import QcReport
from nrf.bundles.source_reader import VectorLayer

COEFFICIENTS = ("lu_curr_n_coeff", "lu_curr_p_coeff", "n_resi_coeff", "p_resi_coeff")
COEFFICIENT_TEXT = ("cromeid", "land_use_cat", "nn_catchment", "subcatchment")
CHUNK = 50_000
# role -> (output column, SQLite type); the role names are the manifest's.
SMALL_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "nn_catchments": [("n2k_site_name", "TEXT"), ("edp_id", "INTEGER"), ("label", "TEXT")],
    "wwtw_catchments": [("wwtw_id", "INTEGER"), ("wwtw_name", "TEXT")],
    "lpa_boundaries": [("name", "TEXT")],
    "subcatchments": [("opcat_name", "TEXT")],
    "edp_extents": [("edp_name", "TEXT"), ("edp_area", "REAL")],
    "edp_boundaries": [("edp_id", "INTEGER"), ("edp_name", "TEXT")],
    "excluded_areas": [("name", "TEXT")],
}
_IDS = {"edp_id", "wwtw_id"}


def _id(value: object, layer: str, key: str, report: QcReport) -> object:
    number = geopackage_cells.whole_number(value)
    if number is None:
        return geopackage_cells.text_or_none(value)  # left for the gate to refuse
    if not fits_integer(number):
        report.add("key_missing", layer, key, f"id {value!r} is too large to be an id")
        return None
    if not isinstance(value, int):
        report.add("cleaned", layer, key, f"id {value!r} read as {number}")
    return number


def create_small_layer(writer: GeoPackageWriter, key: str) -> None:
    """The layer ``key``, empty: filled by ``stage_small``, or left so for a source not read."""
    columns = [*SMALL_COLUMNS[key], ("source_fid", "INTEGER")]
    writer.create_layer(key, columns, geometry_type="MULTIPOLYGON")


def stage_small(writer: GeoPackageWriter, key: str, layer: VectorLayer, report: QcReport) -> None:
    columns = SMALL_COLUMNS[key]
    create_small_layer(writer, key)
    fids = layer.fids.tolist()
    values: dict[str, list[Any]] = {"source_fid": fids}
    for name, _ in columns:
        raw = layer.columns[name]
        where = [f"source fid {f}" for f in fids]
        if name in _IDS:
            values[name] = [_id(v, key, w, report) for v, w in zip(raw, where, strict=True)]
        elif name == "edp_area":
            values[name] = raw
        else:
            values[name] = [
                stripped(v, key, w, layer.names.get(name, name), report)
                for v, w in zip(raw, where, strict=True)
            ]
    keys = [f"source fid {f}" for f in fids]
    writer.append_features(
        key, flattened(key, keys, _geometries(key, keys, layer, report), report), values
    )


def _geometries(key: str, keys: list[str], layer: VectorLayer, report: QcReport) -> Any:
    """The layer's shapes; one GEOS cannot read (NaN, an unclosed ring) is reported, then None."""
    try:
        return shapely.from_wkb(layer.wkb)
    except shapely.errors.GEOSException:
        out = []
        for where, wkb in zip(keys, layer.wkb, strict=True):
            try:
                out.append(shapely.from_wkb(wkb))
            except shapely.errors.GEOSException as exc:
                report.add("geometry_invalid", key, where, f"unreadable geometry ({exc})")
                out.append(None)
        return np.asarray(out, dtype=object)


def _coefficient(value: object, key: object, column: str, report: QcReport) -> float | None:
    if type(value) is float:
        return value if value == value else None
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):  # a BLOB: the file is damaged, not merely untidy
        report.add("value_invalid", "land_use_coefficients", key, f"{column} {value!r}")
        return None
    parsed = parse_number(value)
    if parsed is None:
        report.add("cleaned", "land_use_coefficients", key, f"{column} {value!r} read as NULL")
        return None
    if parsed.how:
        report.add(
            "cleaned",
            "land_use_coefficients",
            key,
            f"{column} {value!r} read as {parsed.value:g} ({parsed.how})",
        )
    return parsed.value  # an infinite one is left for the gate's range rule to refuse


def create_coefficient_layer(writer: GeoPackageWriter) -> str:
    """The coefficient layer, empty (its name returned): filled by ``stage_coefficients``."""
    layer = "land_use_coefficients"
    columns = [(c, "REAL") for c in COEFFICIENTS] + [(c, "TEXT") for c in COEFFICIENT_TEXT]
    writer.create_layer(layer, [*columns, ("source_fid", "INTEGER")], geometry_type="MULTIPOLYGON")
    return layer


def stage_coefficients(
    writer: GeoPackageWriter,
    source: CoefficientSource,
    report: QcReport,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Stream the layer into ``writer`` a chunk at a time; returns the number of features."""
    layer = create_coefficient_layer(writer)
    done = 0
    for chunk in source.chunks(CHUNK):
        ids = chunk.columns["cromeid"]
        keys = [f"source fid {f}" if c is None else c for f, c in zip(chunk.fids, ids, strict=True)]
        values: dict[str, list[Any]] = {"source_fid": chunk.fids}
        values["cromeid"] = [geopackage_cells.text_or_none(c) for c in ids]
        for name in COEFFICIENT_TEXT[1:]:
            values[name] = [geopackage_cells.text_or_none(v) for v in chunk.columns[name]]
        for name in COEFFICIENTS:
            values[name] = [
                _coefficient(v, k, source.names.get(name, name), report)
                for v, k in zip(chunk.columns[name], keys, strict=True)
            ]
        geoms = flattened(layer, keys, decode(layer, keys, chunk.blobs, report), report)
        writer.append_features(layer, geoms, values)
        done += len(chunk.fids)
        if progress is not None:
            progress(done, source.count)
    return done
