"""Where each source layer lives in a delivery: Defra's layout by default, any part overridable.

A renamed delivery must need no code change, so every path, layer and column the build reads
is named here and a TOML manifest can replace any of them (and say the CRS of a layer that
carries none). A manifest names files inside the delivery only: an absolute path or one that
climbs out with ``..`` is refused, so a manifest cannot make a bundle from files nobody delivered.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from attrs import evolve, field, frozen

from nrf.domain.errors import NrfError

FIRST_WINS = "first_wins"
DUPLICATE_POLICIES = ("error", FIRST_WINS)


@frozen(kw_only=True)
class Source:
    """One layer or table of the delivery: file, layer/table name, column roles, assumed CRS."""

    path: str
    layer: str | None
    columns: Mapping[str, str] = field(factory=dict)
    crs: int | None = None
    optional: bool = False
    # role -> other names read when the named column is absent (dropped when a manifest renames)
    alternatives: Mapping[str, tuple[str, ...]] = field(factory=dict)


_NUTRIENTS = "nutrients"
_LOOKUPS = f"{_NUTRIENTS}/SQL_Lookups/Interim_coeffs.sqlite"
# Defra's charging schedule and RICS CIL index, with Defra's own column names (its
# levy_charges and levy_inflation_index tables); delivered as CSV beside iat_input/.
CHARGE_COLUMNS = (
    "edp_id",
    "edp_name",
    "edp_start_date",
    "charge_valid_from",
    "charge_valid_to",
    "base_charge_per_unit",
)
INDEX_COLUMNS = ("charging_year", "cil_index", "index_factor")
CSV_SOURCES = ("levy_charges", "inflation_index")

DEFAULT_SOURCES: dict[str, Source] = {
    "nn_catchments": Source(
        path=f"{_NUTRIENTS}/Catchments/NN_Catchments_03_2024.shp",
        layer=None,
        columns={"n2k_site_name": "N2K_Site_N", "edp_id": "OID", "label": "Label"},
        # A delivery without `Label` lists each catchment by its N2K site, as nrf did before.
        alternatives={"label": ("N2K_Site_N",)},
    ),
    "wwtw_catchments": Source(
        path=f"{_NUTRIENTS}/wwtw files/WwTW_all_features.shp",
        layer=None,
        columns={"wwtw_id": "WwTw_ID", "wwtw_name": "WwTW"},
    ),
    "lpa_boundaries": Source(
        path=f"{_NUTRIENTS}/LPA/LPA_National.shp", layer=None, columns={"name": "NAME"}
    ),
    "subcatchments": Source(
        path=f"{_NUTRIENTS}/Catchments/WFD_Surface_Water_Operational_Catchments_Cycle_2.shp",
        layer=None,
        columns={"opcat_name": "OPCAT_NAME"},
    ),
    "land_use_coefficients": Source(
        path=f"{_NUTRIENTS}/NMSCoefficientLayerTEST.gpkg",
        layer="NMSCoefficientLayer",
        columns={
            "cromeid": "cromeid",
            "land_use_cat": "Land_use_cat",
            "nn_catchment": "NN_Catchment",
            "subcatchment": "SubCatchment",
            "lu_curr_n_coeff": "LU_CurrNcoeff",
            "lu_curr_p_coeff": "LU_CurrPcoeff",
            "n_resi_coeff": "N_ResiCoeff",
            "p_resi_coeff": "P_ResiCoeff",
        },
    ),
    "wwtw_permits": Source(
        path=_LOOKUPS,
        layer="WwTw_lookup",
        columns={
            "wwtw_code": "WwTW_code",
            "wwtw_name": "WwTW_name",
            "subcatchment": "Subcatchment_name",
            "n_conc_2025_2030": "Nitrogen_2025_2030",
            "n_conc_2030_on": "Nitrogen_2030_onwards",
            "p_conc_2025_2030": "Phosphorus_2025_2030",
            "p_conc_2030_on": "Phosphorus_2030_onwards",
        },
    ),
    "occupancy_rates": Source(
        path=_LOOKUPS,
        layer="rates_lookup",
        columns={
            "nn_catchment": "NN_Catchment",
            "occupancy": "Occ_Rate",
            "water": "Water_Usage_L_Day",
        },
    ),
    "edp_extents": Source(
        path=f"{_NUTRIENTS}/EDP/edp_boundary_extents.gpkg",
        layer=None,
        columns={"edp_name": "EDP_Name", "edp_area": "EDP_Area"},
        optional=True,
    ),
    "edp_boundaries": Source(
        path=f"{_NUTRIENTS}/EDP/EDP_Boundaries.shp",
        layer=None,
        columns={"edp_id": "EDP_Id", "edp_name": "EDP_Name"},
    ),
    # Defra's loader takes an excluded area's name from `site_name`; older exports say `name`.
    "excluded_areas": Source(
        path=f"{_NUTRIENTS}/EDP/EDP_Excluded_Areas.shp",
        layer=None,
        columns={"name": "site_name"},
        alternatives={"name": ("name",)},
    ),
    "levy_charges": Source(
        path="levy_charges.csv", layer=None, columns={c: c for c in CHARGE_COLUMNS}
    ),
    "inflation_index": Source(
        path="inflation_index.csv", layer=None, columns={c: c for c in INDEX_COLUMNS}
    ),
}


@frozen(kw_only=True)
class Manifest:
    """The sources plus build options (manifest values; the command line overrides them)."""

    sources: Mapping[str, Source] = field(factory=lambda: dict(DEFAULT_SOURCES))
    duplicate_works: str = "error"
    default_occupancy: float | None = None
    default_water_usage: float | None = None
    dwelling_categories: tuple[str, ...] = ("Hotel", "Student Accommodation")
    name: str = "nrf-defra-iat"
    description: str = "Built by nrf from a Defra iat_input delivery"


def _bad(message: str) -> NrfError:
    return NrfError("bad_manifest", message)


def _source(key: str, base: Source, data: Any) -> Source:
    if not isinstance(data, dict):
        raise _bad(f"[sources.{key}] must be a table")
    unknown = set(data) - {"path", "layer", "columns", "crs"}
    if unknown:
        raise _bad(f"[sources.{key}] has unknown keys {sorted(unknown)}")
    columns = dict(base.columns)
    extra = data.get("columns", {})
    if not isinstance(extra, dict) or not all(isinstance(v, str) for v in extra.values()):
        raise _bad(f"[sources.{key}.columns] must map column roles to names")
    wrong = set(extra) - set(base.columns)
    if wrong:
        raise _bad(f"[sources.{key}.columns] has unknown roles {sorted(wrong)}")
    columns.update(extra)
    for name in ("path", "layer"):
        if name in data and not isinstance(data[name], str):
            raise _bad(f"[sources.{key}] {name} must be text, not {data[name]!r}")
    if "path" in data:
        inside_delivery(key, data["path"])
    # An alternative that is another role's column follows that role's renaming (a catchment's
    # label falls back on its N2K site column, by whatever name the manifest gives it).
    renamed = {base.columns[role]: columns[role] for role in extra}
    crs = data.get("crs", base.crs)
    if crs is not None and (isinstance(crs, bool) or not isinstance(crs, int)):
        raise _bad(f"[sources.{key}] crs must be an EPSG number such as 27700")
    return evolve(
        base,
        path=str(data.get("path", base.path)),
        layer=data.get("layer", base.layer),
        columns=columns,
        crs=crs,
        alternatives={
            r: tuple(renamed.get(n, n) for n in a)
            for r, a in base.alternatives.items()
            if r not in extra
        },
    )


def inside_delivery(key: str, path: str) -> None:
    """A manifest path is relative and stays in the delivery folder (no drive, root or ``..``)."""
    forms = (PurePosixPath(path), PureWindowsPath(path))
    if any(f.is_absolute() or f.drive or f.root for f in forms) or any(
        ".." in f.parts for f in forms
    ):
        raise _bad(
            f"[sources.{key}] path {path!r} leaves the delivery folder: name a file inside it"
        )


def parse_manifest(data: Mapping[str, Any]) -> Manifest:
    """A Manifest from parsed TOML; unknown sections, sources and roles are refused."""
    unknown = set(data) - {"sources", "options"}
    if unknown:
        raise _bad(f"unknown sections {sorted(unknown)}")
    sources = dict(DEFAULT_SOURCES)
    for key, value in dict(data.get("sources", {})).items():
        if key not in DEFAULT_SOURCES:
            raise _bad(f"unknown source '{key}' (known: {', '.join(DEFAULT_SOURCES)})")
        sources[key] = _source(key, DEFAULT_SOURCES[key], value)
    options = dict(data.get("options", {}))
    known = {f.name for f in Manifest.__attrs_attrs__} - {"sources"}
    wrong = set(options) - known
    if wrong:
        raise _bad(f"[options] has unknown keys {sorted(wrong)}")
    if options.get("duplicate_works", "error") not in DUPLICATE_POLICIES:
        raise _bad(f"[options] duplicate_works must be one of {DUPLICATE_POLICIES}")
    check_option_types(options)
    if "dwelling_categories" in options:
        options["dwelling_categories"] = tuple(options["dwelling_categories"])
    return Manifest(sources=sources, **options)


def check_option_types(options: Mapping[str, Any]) -> None:
    """Each option has its one type: "two" is no occupancy, and "Hotel" no list of names."""
    for key in ("default_occupancy", "default_water_usage"):
        value = options.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise _bad(f"[options] {key} must be a number, not {value!r}")
    for key in ("name", "description"):
        if key in options and not isinstance(options[key], str):
            raise _bad(f"[options] {key} must be text, not {options[key]!r}")
    categories = options.get("dwelling_categories", [])
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        raise _bad(f"[options] dwelling_categories must be a list of names, not {categories!r}")


def load_manifest(path: Path | None) -> Manifest:
    """The default manifest, or the defaults overridden by the TOML file at ``path``."""
    if path is None:
        return Manifest()
    if path.exists() and not path.is_file():  # a folder, or a pipe that would never end
        raise _bad(f"manifest {path} is not a regular file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _bad(f"cannot read manifest {path}: {exc}") from None
    return parse_manifest(data)
