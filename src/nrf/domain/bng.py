"""British National Grid (EPSG:27700), the CRS every site is assessed in: one code, its spellings.

The bundle's layers, the boundaries, the results and the queue messages all name it; each
spelling is derived from the one code here so they cannot drift apart.
"""

from __future__ import annotations

from typing import Any

BNG_EPSG = 27700
BNG = f"EPSG:{BNG_EPSG}"  # as pyproj and ``--crs`` spell it, and as RawFeature.crs holds it


def bng_crs_member() -> dict[str, Any]:
    """A GeoJSON ``crs`` member naming BNG (GeoJSON 2008; RFC 7946 leaves it out), new each call."""
    return {"type": "name", "properties": {"name": f"urn:ogc:def:crs:EPSG::{BNG_EPSG}"}}
