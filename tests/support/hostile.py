"""Hostile and broken inputs, built in memory: message bodies and boundary files."""

from __future__ import annotations

import io
import json
import math
import stat
import zipfile

BNG = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
CENTRE = (582814.93, 328188.89)  # a Broads & Wensum sample site, inside the synthetic bundle
SQUARE = [
    [582800.0, 328200.0],
    [582840.0, 328200.0],
    [582840.0, 328240.0],
    [582800.0, 328240.0],
    [582800.0, 328200.0],
]
BOWTIE = [
    [582800.0, 328200.0],
    [582840.0, 328240.0],
    [582840.0, 328200.0],
    [582800.0, 328240.0],
    [582800.0, 328200.0],
]


def polygon(ring: list, crs: dict | None = BNG) -> dict:
    geometry: dict = {"type": "Polygon", "coordinates": [ring]}
    if crs is not None:
        geometry["crs"] = crs
    return geometry


def job(job_id: str, email: str | None = "planner@example.gov.uk", **fields: object) -> dict:
    """A canonical job on a small square; ``fields`` replace or add members."""
    body: dict = {
        "job_id": job_id,
        "development": {"name": job_id, "dwellings": 10, "dwelling_category": "housing"},
        "boundary": polygon(SQUARE),
    }
    if email:
        body["email"] = email
    body.update(fields)
    if "boundary_uri" in fields:
        del body["boundary"]
    return body


def circle_ring(vertices: int, radius: float = 300.0) -> list[list[float]]:
    """A closed ring of ``vertices`` + 1 positions around the sample site."""
    cx, cy = CENTRE
    ring = []
    for i in range(vertices):
        angle = 2 * math.pi * i / vertices
        x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle)
        ring.append([round(x, 3), round(y, 3)])
    return [*ring, ring[0]]


def many_vertices_geojson(vertices: int) -> bytes:
    return json.dumps(polygon(circle_ring(vertices))).encode()


def deep_json(depth: int) -> str:
    """Arrays nested ``depth`` deep as a boundary's coordinates."""
    return '{"type": "Polygon", "coordinates": ' + "[" * depth + "]" * depth + "}"


def deep_message(job_id: str, depth: int) -> str:
    head = json.dumps(job(job_id))[:-1]
    return head + ', "extra": ' + "[" * depth + "]" * depth + "}"


def zip_of(members: dict[str, bytes], symlinks: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in symlinks:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def zip_bomb(expanded_bytes: int) -> bytes:
    """One GeoJSON-named entry of ``expanded_bytes`` spaces: a few hundred kB compressed."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open("boundary.geojson", "w", force_zip64=True) as entry,
    ):
        chunk = b" " * (1 << 20)
        for _ in range(expanded_bytes // len(chunk)):
            entry.write(chunk)
    return buffer.getvalue()


def nested_geojson_values(count: int) -> bytes:
    """A FeatureCollection whose one property is a list of ``count`` small objects."""
    items = ",".join(['{"a":1}'] * count)
    return (
        '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"x":['
        + items
        + ']},"geometry":'
        + json.dumps(polygon(SQUARE))
        + "}]}"
    ).encode()


def huge_ring_kml(positions: int) -> bytes:
    """A KML of one placemark whose ring has ``positions`` positions (degrees, near the sample
    site): under a file's count of positions, far over one site's vertices, so only GDAL's
    built geometry shows it (999,000 positions: 19 MB, ~0.3 s and ~200 MiB for GDAL)."""
    lon, lat, radius = 1.2, 52.6, 0.01
    # Written one position at a time: a list of a million strings would leave ~70 MB of the
    # caller's heap free for a forked reader to reuse unseen by its memory ceiling.
    text = io.StringIO()
    for i in range(positions):
        a = 2 * math.pi * (i % (positions - 1)) / (positions - 1)
        text.write(f"{lon + radius * math.cos(a):.6f},{lat + radius * math.sin(a):.6f} ")
    ring = text.getvalue().rstrip()
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>ring</name>'
        '<ExtendedData><Data name="dwellings"><value>10</value></Data></ExtendedData>'
        "<Polygon><outerBoundaryIs><LinearRing><coordinates>"
        + ring
        + "</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></Document></kml>"
    ).encode()
