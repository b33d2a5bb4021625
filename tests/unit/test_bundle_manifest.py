"""The sources manifest: Defra's layout by default; any path, layer, column or CRS overridable."""

from __future__ import annotations

from pathlib import Path

import pytest

from nrf.bundles.manifest import DEFAULT_SOURCES, FIRST_WINS, load_manifest, parse_manifest
from nrf.domain.errors import NrfError


def test_defaults_are_the_shipped_layout() -> None:
    manifest = load_manifest(None)
    nn = manifest.sources["nn_catchments"]
    assert nn.path == "nutrients/Catchments/NN_Catchments_03_2024.shp"
    assert dict(nn.columns) == {"n2k_site_name": "N2K_Site_N", "edp_id": "OID", "label": "Label"}
    assert dict(nn.alternatives) == {"label": ("N2K_Site_N",)}  # an older delivery has none
    assert manifest.sources["wwtw_permits"].layer == "WwTw_lookup"
    assert manifest.duplicate_works == "error" and manifest.default_occupancy is None


def test_a_manifest_overrides_only_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / "sources.toml"
    path.write_text(
        '[sources.land_use_coefficients]\npath = "coeffs/v2.gpkg"\ncrs = 27700\n'
        '[sources.land_use_coefficients.columns]\ncromeid = "CROME_ID"\n'
        '[options]\nduplicate_works = "first_wins"\ndefault_occupancy = 2.4\n'
        "default_water_usage = 120\n"
    )
    manifest = load_manifest(path)
    coeff = manifest.sources["land_use_coefficients"]
    assert (coeff.path, coeff.layer, coeff.crs) == ("coeffs/v2.gpkg", "NMSCoefficientLayer", 27700)
    assert coeff.columns["cromeid"] == "CROME_ID"
    assert coeff.columns["lu_curr_n_coeff"] == "LU_CurrNcoeff"  # untouched
    assert manifest.sources["nn_catchments"] == DEFAULT_SOURCES["nn_catchments"]
    assert manifest.duplicate_works == FIRST_WINS
    assert (manifest.default_occupancy, manifest.default_water_usage) == (2.4, 120)


@pytest.mark.parametrize(
    "data",
    [
        {"sourcez": {}},
        {"sources": {"nn": {}}},
        {"sources": {"nn_catchments": {"colour": "red"}}},
        {"sources": {"nn_catchments": {"columns": {"site": "X"}}}},
        {"sources": {"nn_catchments": {"crs": "27700"}}},
        {"options": {"duplicate_works": "last_wins"}},
        {"options": {"speed": 11}},
    ],
)
def test_unknown_or_malformed_entries_are_refused(data: dict) -> None:
    with pytest.raises(NrfError) as caught:
        parse_manifest(data)
    assert caught.value.code == "bad_manifest"


def test_an_unreadable_manifest_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[sources\n")
    with pytest.raises(NrfError, match="cannot read manifest"):
        load_manifest(path)


def test_defras_edp_layers_and_levy_csvs_have_their_default_sources() -> None:
    sources = load_manifest(None).sources
    edps, excluded = sources["edp_boundaries"], sources["excluded_areas"]
    assert edps.path == "nutrients/EDP/EDP_Boundaries.shp"
    assert dict(edps.columns) == {"edp_id": "EDP_Id", "edp_name": "EDP_Name"}
    assert excluded.path == "nutrients/EDP/EDP_Excluded_Areas.shp"
    # Defra's loader reads an excluded area's name from site_name; `name` is read when absent.
    assert dict(excluded.columns) == {"name": "site_name"}
    assert dict(excluded.alternatives) == {"name": ("name",)}
    assert sources["levy_charges"].path == "levy_charges.csv"
    assert list(sources["inflation_index"].columns) == [
        "charging_year",
        "cil_index",
        "index_factor",
    ]


def test_a_renamed_column_drops_the_alternative_names() -> None:
    data = {"sources": {"excluded_areas": {"columns": {"name": "SSSI_NAME"}}}}
    excluded = parse_manifest(data).sources["excluded_areas"]
    assert dict(excluded.columns) == {"name": "SSSI_NAME"} and dict(excluded.alternatives) == {}


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "../elsewhere/levy.csv",
        "nutrients/../../x.shp",
        "C:\\data\\x.shp",
        "a\\..\\..\\b",
    ],
)
def test_a_path_that_leaves_the_delivery_is_refused(path: str) -> None:
    with pytest.raises(NrfError) as caught:
        parse_manifest({"sources": {"levy_charges": {"path": path}}})
    assert caught.value.code == "bad_manifest"
    assert "leaves the delivery folder" in caught.value.message


def test_a_path_inside_the_delivery_is_kept() -> None:
    data = {"sources": {"levy_charges": {"path": "levy/charges.csv"}}}
    assert parse_manifest(data).sources["levy_charges"].path == "levy/charges.csv"


def test_a_catchments_label_is_mappable_and_its_fallback_follows_a_renamed_site_column() -> None:
    renamed = parse_manifest(
        {"sources": {"nn_catchments": {"columns": {"n2k_site_name": "Site_Name"}}}}
    ).sources["nn_catchments"]
    # Without `Label`, the label is read from the N2K site column, by its new name.
    assert dict(renamed.alternatives) == {"label": ("Site_Name",)}
    labelled = parse_manifest(
        {"sources": {"nn_catchments": {"columns": {"label": "Catchment"}}}}
    ).sources["nn_catchments"]
    # A label column the manifest names is read as named, with no fallback.
    assert (labelled.columns["label"], dict(labelled.alternatives)) == ("Catchment", {})
