"""Which layer of a boundary source to read: a GeoPackage's layers, a folder's shapefiles.

GIS users hand over a shapefile as its folder, and a GeoPackage may hold several layers;
when the choice is not obvious we refuse and name every layer, and the caller may choose
one by name (``nrf assess --layer NAME``, the API's ``layer`` field), never a guess.
"""

from __future__ import annotations

from pathlib import Path

import pyogrio

from nrf.domain.errors import InvalidInput, Problem

_POLYGON_TYPES = ("Polygon", "MultiPolygon")
_HOW = "choose one by its name as the layer"


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(code=code, message=message)])


def _named(names: list[str]) -> str:
    """The names, each cut to 60 characters (a name is the file's, echoed in the answer)."""
    return ", ".join(_short(name) for name in names[:20]) + (", ..." if len(names) > 20 else "")


def _short(name: str) -> str:
    return repr(name) if len(name) <= 60 else repr(name[:57] + "...")


def shapefile_in_folder(folder: Path, layer: str | None) -> Path:
    """The .shp in ``folder`` (the one there, or the one whose name is ``layer``)."""
    found = sorted((p for p in folder.iterdir() if p.suffix.lower() == ".shp"), key=str)
    names = [p.stem for p in found]
    if layer is not None:
        for path in found:
            if path.stem == layer:
                return path
        message = f"the folder {folder.name!r} has no shapefile called {_short(layer)}"
        raise _refuse("unknown_layer", message + f" (it has {_named(names) or 'none'})")
    if len(found) == 1:
        return found[0]
    if not found:
        message = f"the folder {folder.name!r} holds no shapefile (.shp); give the boundary "
        message += "file itself (.geojson, .shp, .zip or .gpkg)"
        raise _refuse("no_boundary_in_folder", message)
    message = f"the folder {folder.name!r} holds {len(found)} shapefiles ({_named(names)}); "
    raise _refuse("ambiguous_layer", message + _HOW)


def gpkg_layer(path: Path, layer: str | None) -> str:
    """The layer to read: ``layer`` if given, else the only layer or only polygon layer."""
    layers = [(str(name), str(kind)) for name, kind in pyogrio.list_layers(path)]
    names = [name for name, _ in layers]
    if layer is not None:
        if layer in names:
            return layer
        message = f"the GeoPackage has no layer called {_short(layer)} (it has {_named(names)})"
        raise _refuse("unknown_layer", message)
    if len(layers) == 1:
        return layers[0][0]
    polygons = [name for name, kind in layers if kind.split(" ")[0] in _POLYGON_TYPES]
    if len(polygons) == 1:
        return polygons[0]
    if not layers:
        raise _refuse("empty_file", "the GeoPackage has no layers")
    message = f"the GeoPackage has {len(polygons)} polygon layers among {_named(names)}; "
    raise _refuse("ambiguous_layer", message + f"{_HOW}, or send one")
