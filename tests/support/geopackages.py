"""Small GeoPackages for tests, written whole through the bundle's own writer."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from nrf.bundles.geopackage_writer import GeoPackageWriter, Layer, Table


def write_geopackage(
    path: str | Path, layers: Iterable[Layer], tables: Iterable[Table] = (), *, epsg: int = 27700
) -> Path:
    """Write ``layers`` and ``tables`` to a new GeoPackage at ``path`` (replacing any file)."""
    with GeoPackageWriter(path, epsg=epsg) as writer:
        for layer in layers:
            writer.create_layer(layer.name, layer.columns, geometry_type=layer.geometry_type)
            writer.append_features(layer.name, layer.geometries, layer.attributes)
        for table in tables:
            writer.create_table(table.name, table.columns, table.rows)
    return Path(path)
