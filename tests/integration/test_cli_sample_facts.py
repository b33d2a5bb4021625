"""The sample files' facts the CLI and API tests rely on, read without nrf and checked twice.

245 sites, the small site's id, category, dwellings and 0.03 ha, and which sample sites the
synthetic bundle puts in scope: each one read here by a route of its own (the .shx index, the
dBASE bytes, the shoelace formula, shapely over the GeoPackage's tables) and compared with
what the samples' README and docs/bundle-format.md state.
"""

from __future__ import annotations

import json
import re

from nrf.adapters.boundary_data.packaged import bundled_reference_data, bundled_samples
from support.sample_facts import (
    BNW_SITES,
    dbf_records,
    sample_sites,
    scope_of_sites,
    shapefile_record_count,
    shoelace_m2,
)

SAMPLES = bundled_samples()
BNW = SAMPLES / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
SMALL_SHP = SAMPLES / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp"
SMALL_JSON = SAMPLES / "BnW_small_under_1_hectare_geojson" / "BnW_small_under_1_hectare.geojson"
BUNDLE = bundled_reference_data()


def test_the_samples_hold_as_many_sites_as_their_readme_says() -> None:
    readme = (SAMPLES / "README.md").read_text()
    said = {m[0]: int(m[1]) for m in re.findall(r"\| (\w+)/ \|[^|]*\| (\d+) \|", readme)}
    assert said == {
        "BnW_cleaned_110925": 245,
        "BnW_small_under_1_hectare": 1,
        "BnW_small_under_1_hectare_geojson": 1,
    }
    # The index and the table are two separate files; both must agree with the README.
    assert shapefile_record_count(BNW) == len(dbf_records(BNW)) == BNW_SITES == 245
    assert shapefile_record_count(SMALL_SHP) == len(dbf_records(SMALL_SHP)) == 1
    assert len(json.loads(SMALL_JSON.read_text())["features"]) == 1


def test_the_small_site_is_24_00119_f_one_in_system_dwelling_on_0_03_ha() -> None:
    [record] = dbf_records(SMALL_SHP)
    [feature] = json.loads(SMALL_JSON.read_text())["features"]
    for name in ("id", "Dwel_Cat", "Dwellings"):
        assert record[name] == str(feature["properties"][name]), name
    assert (record["id"], record["Dwel_Cat"], record["Dwellings"]) == (
        "24/00119/F",
        "in-system",
        "1",
    )
    [ring] = feature["geometry"]["coordinates"]
    area = shoelace_m2(ring)
    # The file's own Shape_Area column says 259.392014469 m²; the shoelace gives the same.
    assert abs(area - float(record["Shape_Area"])) < 1e-3
    # 259.39 m² / 10,000 = 0.0259 ha -> 0.03 ha at two places.
    assert round(area / 10_000, 2) == 0.03


def test_which_sample_sites_the_synthetic_bundle_puts_in_scope() -> None:
    # docs/bundle-format.md lays the bundle out around the samples: 7 sites straddle both NN
    # catchments and 23 lie outside both; of those, 3 sit in works 2690 (no permit row) and 8
    # on the fallback 141, so 23 - 3 - 8 = 12 are outside on works with a permit, and
    # 245 - 23 = 222 are inside.
    scope = scope_of_sites(sample_sites(BNW), BUNDLE)
    assert (
        scope.in_catchments,
        scope.in_two_catchments,
        scope.outside_with_permit,
        scope.outside_no_permit,
        scope.outside_package_plant,
    ) == (222, 7, 12, 3, 8)
    # The small sample site is inside the Wensum (the same page says so).
    assert scope_of_sites(sample_sites(SMALL_SHP), BUNDLE).in_catchments == 1
