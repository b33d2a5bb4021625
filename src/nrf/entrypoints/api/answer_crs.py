"""``?crs=EPSG:27700`` asks for the GeoJSON answer in British National Grid, as the CLI's copy.

A GeoJSON answer is RFC 7946 (WGS 84 longitude, latitude; no ``crs`` member). The sites are
assessed in British National Grid, and `nrf assess` writes that copy too (``NAME.bng.geojson``,
the worker's ``result.bng.geojson``); this parameter gives the API's client the same bytes. One
value only, and only with a GeoJSON answer: nrf makes no other projection, and a ``crs`` sent
with JSON, CSV or HTML would otherwise be ignored without a word.
"""

from __future__ import annotations

import falcon

from nrf.entrypoints.api.problems import ApiProblem
from nrf.entrypoints.api.representations import GEOJSON

BNG = "EPSG:27700"


def wants_bng(req: falcon.Request, kind: str) -> bool:
    """Whether ``crs`` asks for British National Grid; ApiProblem ``bad_crs`` (400) for any
    other value, a repeat, or an answer of type ``kind`` that is not GeoJSON."""
    given = req.get_param_as_list("crs") or []
    if not given:
        return False
    if len(given) > 1:
        raise ApiProblem("bad_crs", "give crs once")
    text = given[0].strip()
    if text.upper() != BNG:
        raise ApiProblem(
            "bad_crs",
            f"crs {text[:40]!r} is not offered: crs={BNG} gives British National Grid GeoJSON; "
            "without crs the GeoJSON is RFC 7946 (WGS 84)",
        )
    if kind != GEOJSON:
        raise ApiProblem(
            "bad_crs",
            f"crs={BNG} applies to a GeoJSON answer (Accept: {GEOJSON}); this answer is {kind}",
        )
    return True
