"""`python -m benchmarks.upload_memory`: what the small uploads of issue 31 cost the API.

Each file is built full size (a KMZ of a 190 MiB KML; GeoPackages, zipped: a polygon of
2,500,000 vertices in SpatiaLite's encoding, an unused text column of 100 MB, and one of 45 MB,
under the 50 MiB file limit) and read as an upload is (``read_boundary_bytes``) in a fresh
Python process, which reports its resident memory before the read, after it, and the growth of
its peak (VmHWM), with the code the read ended in. The reading child's own memory is not
counted: it is capped and gone.
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pyogrio.raw
from shapely.geometry import box

X, Y = 600_000.0, 300_000.0
MB = 1_000_000


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise LookupError(field)


def _zipped(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def _gpkg(folder: Path, name: str, notes: str) -> Path:
    path = folder / name
    columns = {"id": ["S1"], "dwellings": [10], "notes": [notes]}
    pyogrio.raw.write(
        path,
        np.array([box(X, Y, X + 100, Y + 100).wkb], dtype=object),
        [np.array(v, dtype=object if k != "dwellings" else None) for k, v in columns.items()],
        fields=list(columns),
        geometry_type="Polygon",
        crs="EPSG:27700",
        driver="GPKG",
    )
    return path


def _spatialite(folder: Path, vertices: int) -> bytes:
    path = _gpkg(folder, "spatialite.gpkg", "")
    ring = [(X + (i % 100), Y + (i % 7)) for i in range(vertices - 1)]
    ring.append(ring[0])
    body = struct.pack("<iii", 3, 1, len(ring)) + b"".join(struct.pack("<dd", *p) for p in ring)
    mbr = struct.pack("<dddd", X, Y, X + 100, Y + 100)
    blob = b"\x00\x01" + struct.pack("<i", 27700) + mbr + b"\x7c" + body + b"\xfe"
    with sqlite3.connect(path) as db:
        for (trigger,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            db.execute(f'DROP TRIGGER "{trigger}"')
        db.execute("UPDATE spatialite SET geom = ?", (blob,))
    db.close()
    return path.read_bytes()


def _padded_kml(padding: int) -> bytes:
    """One site in Norfolk and ``padding`` spaces: deflates to almost nothing."""
    lon, lat = 1.5, 52.6
    step = 0.0005
    corners = [(lon, lat), (lon + step, lat), (lon + step, lat + step), (lon, lat + step)]
    coordinates = " ".join(f"{x},{y},0" for x, y in [*corners, corners[0]])
    placemark = (
        '<Placemark><name>S1</name><ExtendedData><Data name="dwellings"><value>10</value>'
        "</Data></ExtendedData><Polygon><outerBoundaryIs><LinearRing><coordinates>"
        f"{coordinates}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>"
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2">'
        f"<Document>{' ' * padding}{placemark}</Document></kml>"
    ).encode()


def files(folder: Path) -> dict[str, tuple[str, bytes]]:
    return {
        "KMZ of a 190 MiB KML": ("sites.kmz", _zipped("doc.kml", _padded_kml(190 * 1024 * 1024))),
        "GeoPackage, SpatiaLite polygon of 2,500,000 vertices, zipped": (
            "sites.zip",
            _zipped("sites.gpkg", _spatialite(folder, 2_500_000)),
        ),
        "GeoPackage, unused 100 MB text column, zipped": (
            "sites.zip",
            _zipped("notes.gpkg", _gpkg(folder, "notes.gpkg", "x" * 100 * MB).read_bytes()),
        ),
        "GeoPackage, unused 45 MB text column, zipped": (
            "sites.zip",
            _zipped("notes45.gpkg", _gpkg(folder, "notes45.gpkg", "x" * 45 * MB).read_bytes()),
        ),
    }


def measure(path: Path, name: str) -> dict[str, object]:
    """Run in a fresh process: read the upload at ``path`` as the API does, and report."""
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
    from nrf.domain.errors import InvalidInput

    data = path.read_bytes()
    before = _status("VmRSS")
    try:
        outcome = f"read, {len(read_boundary_bytes(data, name))} site(s)"
    except InvalidInput as error:
        outcome = ", ".join(error.codes)
    return {
        "outcome": outcome,
        "rss_before_mb": round(before / MB),
        "rss_after_mb": round(_status("VmRSS") / MB),
        "peak_growth_mb": round((_status("VmHWM") - before) / MB),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--one", nargs=2, metavar=("PATH", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(Path(args.one[0]), args.one[1])))
        return 0
    print("| upload | its size | answer | RSS before | after | peak growth |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as temp:
        for label, (name, data) in files(Path(temp)).items():
            path = Path(temp) / "upload"
            path.write_bytes(data)
            command = [sys.executable, "-m", "benchmarks.upload_memory", "--one", str(path), name]
            found = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
            print(
                f"| {label} | {len(data) / 1000:,.0f} kB | {found['outcome']} | "
                f"{found['rss_before_mb']} MB | {found['rss_after_mb']} MB | "
                f"{found['peak_growth_mb']} MB |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
