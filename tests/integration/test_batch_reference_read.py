"""One batch read gives every site exactly the reference data a read of that site alone gives."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import attrs
import pytest
from shapely.geometry import box
from test_validation_record import validation_record_layers, with_sidecar

from nrf.adapters.boundary_data import validation_record
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.adapters.boundary_data.packaged import bundled_reference_data, bundled_samples
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.domain.model import SiteReferenceData
from nrf.domain.validation import validate_features

LAYERS = (
    "nn_catchments",
    "wwtw_catchments",
    "lpa_boundaries",
    "subcatchments",
    "edps",
    "excluded_areas",
)


def described(ref: SiteReferenceData) -> dict[str, list[tuple[Any, ...]]]:
    """Every feature of every layer (parcels too) as its type and fields, the geometry as exact
    WKB, in the order given."""
    return {
        layer: [
            (
                type(f).__name__,
                *((k, v.wkb if k == "geometry" else v) for k, v in attrs.asdict(f).items()),
            )
            for f in getattr(ref, layer)
        ]
        for layer in (*LAYERS, "coefficients")
    }


@pytest.mark.parametrize("trusted", [False, True], ids=["eager", "lazy"])
def test_the_batch_read_equals_one_read_per_site(tmp_path: Path, trusted: bool) -> None:
    path = Path(shutil.copy(bundled_reference_data(), tmp_path / "norfolk.gpkg"))
    if trusted:  # vouched for: the small layers are read lazily, through their R-trees
        validation_record.record_valid(path, validation_record_layers(), sha256=with_sidecar(path))
    boundaries = [
        d.boundary
        for d in validate_features(
            read_boundary_file(bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp")
        )
    ]
    boundaries.append(box(0, 0, 10, 10))  # far from everything: nothing in any layer
    batch = GeoPackageBoundaryData(path).references_for(boundaries)
    alone = GeoPackageBoundaryData(path)  # its own process state: the per-site path
    assert len(batch) == len(boundaries)
    features = 0
    for got, boundary in zip(batch, boundaries, strict=True):
        want = described(alone.reference_for(boundary))
        assert described(got) == want
        features += sum(map(len, want.values()))
    assert described(batch[-1]) == {layer: [] for layer in (*LAYERS, "coefficients")}
    assert features > 245 * 5  # the comparison compared something for most sites
    assert alone.references_for([]) == []
