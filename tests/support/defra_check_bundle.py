"""A small bundle for the drop-in /check-boundary: two EDPs, and excluded areas without names.

The synthetic Norfolk catchments, works, LPAs and tables, but its EDP layer split in two: the
Norfolk EDP (id 1) over the Wensum and the northern Broads catchment, and a made-up "Test Yare
EDP" (id 2) over the southern one, which meet along y = 300,000 east of x = 630,000. Three
excluded areas lie over x 600,000-600,900, y 320,000-320,500: one with no name, one named only
by spaces (both x 600,000-600,500) and " Fen SSSI " (x 600,400-600,900). One coefficient
polygon covers the whole extent (the check reads no coefficients).
"""

from __future__ import annotations

from pathlib import Path

from shapely.geometry import box

from nrf.adapters.boundary_data.geopackage_schema import COEFFICIENT_COLUMNS
from nrf.bundles import synthetic_norfolk as norfolk
from nrf.bundles.geopackage_writer import Layer, Table
from support.geopackages import write_geopackage

YARE_EDP = "Test Yare EDP"


def write_defra_check_bundle(path: Path) -> Path:
    wensum, north, south = norfolk.nn_layer().geometries
    edps = Layer(
        name="edp_boundaries",
        columns=[("edp_id", "INTEGER"), ("edp_name", "TEXT")],
        geometries=[wensum, north, south],
        attributes={"edp_id": [1, 1, 2], "edp_name": [norfolk.NORFOLK_EDP] * 2 + [YARE_EDP]},
    )
    excluded = Layer(
        name="excluded_areas",
        columns=[("name", "TEXT")],
        geometries=[
            box(600_000, 320_000, 600_500, 320_500),
            box(600_000, 320_000, 600_500, 320_500),
            box(600_400, 320_000, 600_900, 320_500),
        ],
        attributes={"name": [None, "   ", " Fen SSSI "]},
    )
    coefficients = Layer(
        name="land_use_coefficients",
        columns=[(c, "REAL") for c in COEFFICIENT_COLUMNS],
        geometries=[box(*norfolk.NORFOLK_EXTENT)],
        attributes={c: [1.0] for c in COEFFICIENT_COLUMNS},
    )
    info = Table(
        "bundle_info",
        [("name", "TEXT"), ("version", "TEXT"), ("created", "TEXT"), ("description", "TEXT")],
        [("nrf-defra-check-test", "1", "2026-11-27", "made up for the /check-boundary tests")],
    )
    layers = [
        norfolk.nn_layer(),
        norfolk.wwtw_layer(),
        norfolk.lpa_layer(),
        norfolk.subcatchment_layer(),
        edps,
        excluded,
        coefficients,
    ]
    return write_geopackage(path, layers, [*norfolk.tables(), info])
