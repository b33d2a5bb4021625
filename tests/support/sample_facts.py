"""Facts of the bundled sample files and bundle, read without nrf, so tests need not trust nrf.

The CLI and API tests check nrf's figures for the Broads & Wensum samples against these: the
record count from the shapefile's index, attributes from its dBASE table, the area by the
shoelace formula, and which sites are in scope by the rule of docs/calculation.md §5 worked
here with plain shapely over the GeoPackage's own tables (read with sqlite3).
"""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import shapely
from attrs import frozen
from shapely.strtree import STRtree

# The Broads & Wensum sample's site count, as its README states; test_cli_sample_facts.py reads
# it again from the .shx index (2,060 bytes: (2060 - 100) / 8 = 245) and the .dbf header.
BNW_SITES = 245
# docs/calculation.md §1 and §5: the fallback works and the package-plant default's name.
FALLBACK_WWTW = 141
PACKAGE_PLANT = "package treatment plant default"


def shapefile_record_count(shp: Path) -> int:
    """Records in a shapefile from its .shx index: a 100-byte header, then 8 bytes a record."""
    size = shp.with_suffix(".shx").stat().st_size
    assert (size - 100) % 8 == 0, size
    return (size - 100) // 8


def dbf_records(shp: Path) -> list[dict[str, str]]:
    """The .dbf beside ``shp`` as text: the dBASE III layout read byte by byte."""
    data = shp.with_suffix(".dbf").read_bytes()
    count, header_len, record_len = struct.unpack("<IHH", data[4:12])
    fields, at = [], 32
    while data[at] != 0x0D:  # each field descriptor is 32 bytes; 0x0D ends them
        name = data[at : at + 11].split(b"\0")[0].decode("ascii")
        fields.append((name, data[at + 16]))
        at += 32
    records = []
    for n in range(count):
        record = data[header_len + n * record_len : header_len + (n + 1) * record_len]
        values, pos = {}, 1  # byte 0 is the deletion flag
        for name, length in fields:
            values[name] = record[pos : pos + length].decode("utf-8").strip()
            pos += length
        records.append(values)
    return records


def shoelace_m2(ring: Sequence[Sequence[float]]) -> float:
    """The area a closed ring encloses, by the shoelace formula (taken about its first point)."""
    x0, y0 = ring[0][0], ring[0][1]
    points = [(x - x0, y - y0) for x, y, *_ in ring]
    twice = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in pairwise(points))
    return abs(twice) / 2


def _geometries(bundle: Path, table: str, *columns: str) -> list[tuple]:
    """(geometry, *columns) of a GeoPackage table; its blobs are a GP header, then WKB."""
    envelope_bytes = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}
    with sqlite3.connect(bundle) as db:
        rows = db.execute(f"SELECT {', '.join(('geom', *columns))} FROM {table}").fetchall()
    found = []
    for blob, *values in rows:
        assert blob[:2] == b"GP", table
        skip = 8 + envelope_bytes[(blob[3] >> 1) & 0b111]
        found.append((shapely.from_wkb(bytes(blob[skip:])), *values))
    return found


def _permits(bundle: Path) -> dict[int, str]:
    """wwtw_id -> name, the export's dirt read as a person would: "\\t1187" and "2519.0" are
    works 1187 and 2519; a row without an id is dropped; the first of two rows for one id wins."""
    with sqlite3.connect(bundle) as db:
        rows = db.execute("SELECT wwtw_id, wwtw_name FROM wwtw_permits ORDER BY fid").fetchall()
    permits: dict[int, str] = {}
    for wwtw_id, name in rows:
        if wwtw_id is not None and str(wwtw_id).strip():
            permits.setdefault(int(float(str(wwtw_id).strip())), name)
    return permits


@frozen
class Scope:
    """How many sites fall under each branch of docs/calculation.md §5."""

    in_catchments: int  # some area in an NN catchment: always in scope
    in_two_catchments: int  # of those, with area in two differently named NN catchments
    outside_with_permit: int  # outside, on a works with a permit row that is not the plant
    outside_no_permit: int  # outside_catchments_no_wwtw
    outside_package_plant: int  # outside_catchments_package_treatment_plant (not iat-2025-09)


def scope_of_sites(sites: Sequence[shapely.Geometry], bundle: Path) -> Scope:
    coefficients = [g for (g,) in _geometries(bundle, "land_use_coefficients")]
    tree = STRtree(coefficients)
    catchments = _geometries(bundle, "nn_catchments", "n2k_site_name")
    works = _geometries(bundle, "wwtw_catchments", "wwtw_id")
    permits = _permits(bundle)
    counts = {"in": 0, "two": 0, "permit": 0, "none": 0, "plant": 0}
    for site in sites:
        parts = [site.intersection(coefficients[i]) for i in tree.query(site, "intersects")]
        names = {
            name for part in parts for nn, name in catchments if part.intersection(nn).area > 0
        }
        if names:
            counts["in"] += 1
            counts["two"] += len(names) == 2
            continue
        area_by_works: dict[int, float] = {}
        for polygon, wwtw_id in works:
            if polygon.intersects(site):
                area = polygon.intersection(site).area
                area_by_works[int(wwtw_id)] = area_by_works.get(int(wwtw_id), 0.0) + area
        # Largest summed area wins, ties to the smallest id; nothing at all: the fallback.
        best = min(area_by_works, key=lambda w: (-area_by_works[w], w), default=FALLBACK_WWTW)
        name = permits.get(best)
        if name is None:
            counts["none"] += 1
        elif best == FALLBACK_WWTW or name.strip().casefold() == PACKAGE_PLANT:
            counts["plant"] += 1
        else:
            counts["permit"] += 1
    return Scope(
        in_catchments=counts["in"],
        in_two_catchments=counts["two"],
        outside_with_permit=counts["permit"],
        outside_no_permit=counts["none"],
        outside_package_plant=counts["plant"],
    )


def nn_overlaps_m2(site: shapely.Geometry, bundle: Path) -> dict[str, float]:
    """m² of ``site`` in each NN catchment with any, summed per catchment name."""
    found: dict[str, float] = {}
    for nn, name in _geometries(bundle, "nn_catchments", "n2k_site_name"):
        area = nn.intersection(site).area
        if area > 0:
            found[name] = found.get(name, 0.0) + area
    return found


def sample_sites(shp: Path) -> list[shapely.Geometry]:
    """The sample's polygons as GDAL reads them (through geopandas, not nrf's reader)."""
    import geopandas

    return list(geopandas.read_file(shp).geometry)
