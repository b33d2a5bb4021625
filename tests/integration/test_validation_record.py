"""A bundle checked once is trusted by digest; any other file is checked in full again."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from shapely.geometry import Polygon, box
from test_geopackage_boundary_data import _coefficient_layer, write_tiny

from nrf.adapters.boundary_data import validation_record
from nrf.adapters.boundary_data.bundle_digest import sidecar_path
from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.bundles.geopackage_writer import Layer
from nrf.domain.errors import BrokenBundle

BOWTIE = Polygon([(0, 0), (10, 10), (10, 0), (0, 10)])  # self-intersecting: invalid


def with_sidecar(path: Path) -> str:
    """Write the digest sidecar a national bundle would have (small files get none)."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    st = path.stat()
    sidecar_path(path).write_text(
        json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest})
    )
    return digest


def bowtie_bundle(tmp_path: Path) -> Path:
    lpa = Layer(
        name="lpa_boundaries",
        columns=[("name", "TEXT")],
        geometries=[box(0, 0, 5, 5), BOWTIE],
        attributes={"name": ["A", "B"]},
    )
    return write_tiny(tmp_path / "bowtie.gpkg", layers={"lpa": lpa})


def test_a_good_bundle_with_a_digest_is_recorded_then_trusted(tmp_path: Path) -> None:
    path = write_tiny(tmp_path / "good.gpkg")
    digest = with_sidecar(path)
    assert validation_record.trusted_layers(path) == frozenset()
    GeoPackageBoundaryData(path)
    record = json.loads(validation_record.record_path(path).read_text())
    assert record["sha256"] == digest
    assert record["layers"] == sorted(validation_record_layers())
    assert "lpa_boundaries" in validation_record.trusted_layers(path)


def test_without_a_digest_sidecar_nothing_is_recorded(tmp_path: Path) -> None:
    path = write_tiny(tmp_path / "plain.gpkg")
    GeoPackageBoundaryData(path)
    assert not validation_record.record_path(path).exists()


def test_an_invalid_layer_is_caught_unless_this_very_file_was_vouched_for(tmp_path: Path) -> None:
    path = bowtie_bundle(tmp_path)
    digest = with_sidecar(path)
    with pytest.raises(BrokenBundle, match="fid 2 has an invalid geometry"):
        GeoPackageBoundaryData(path)
    # A record for another digest vouches for nothing.
    validation_record.record_valid(path, ["lpa_boundaries"], sha256="0" * 64)
    with pytest.raises(BrokenBundle, match="fid 2 has an invalid geometry"):
        GeoPackageBoundaryData(path)
    # A record for this digest (as the bundle builder's quality gate would write) is
    # believed: the check is skipped, which is what makes opening cheap.
    validation_record.record_valid(path, ["lpa_boundaries"], sha256=digest)
    GeoPackageBoundaryData(path)


def test_a_changed_file_loses_its_trust(tmp_path: Path) -> None:
    path = bowtie_bundle(tmp_path)
    validation_record.record_valid(path, ["lpa_boundaries"], sha256=with_sidecar(path))
    with path.open("ab") as handle:  # any change of size or mtime: the sidecar no longer holds
        handle.write(b"\0")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert validation_record.trusted_layers(path) == frozenset()
    with pytest.raises(BrokenBundle, match="fid 2 has an invalid geometry"):
        GeoPackageBoundaryData(path)


def test_an_older_checks_version_is_not_trusted(tmp_path: Path) -> None:
    path = bowtie_bundle(tmp_path)
    digest = with_sidecar(path)
    validation_record.record_path(path).write_text(
        json.dumps({"sha256": digest, "checks_version": 0, "layers": ["lpa_boundaries"]})
    )
    with pytest.raises(BrokenBundle, match="fid 2 has an invalid geometry"):
        GeoPackageBoundaryData(path)


def test_trusted_coefficients_skip_the_per_read_check(tmp_path: Path) -> None:
    bowtie = Polygon([(5000, 0), (5100, 100), (5100, 0), (5000, 100)])
    layer = _coefficient_layer()
    attrs = {c: [*v, 1.0] for c, v in layer.attributes.items()}
    coeff = Layer(
        name=layer.name,
        columns=layer.columns,
        geometries=[*layer.geometries, bowtie],
        attributes=attrs,
    )
    path = write_tiny(tmp_path / "c.gpkg", layers={"coeff": coeff})
    digest = with_sidecar(path)
    with pytest.raises(BrokenBundle, match="fid 201 has an invalid geometry"):
        GeoPackageBoundaryData(path).reference_for(box(5040, 40, 5060, 60))
    validation_record.record_valid(path, ["land_use_coefficients"], sha256=digest)
    got = GeoPackageBoundaryData(path).reference_for(box(5040, 40, 5060, 60))
    assert len(got.coefficients) == 1


def test_lazy_and_eager_reading_give_the_same_reference_data(tmp_path: Path) -> None:
    """The bundled Norfolk demo opened both ways: the same features for every sample site."""
    import shutil

    from nrf.adapters.boundary_data.packaged import bundled_reference_data, bundled_samples
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
    from nrf.domain.validation import validate_features

    path = Path(shutil.copy(bundled_reference_data(), tmp_path / "norfolk.gpkg"))
    eager = GeoPackageBoundaryData(path)  # no digest sidecar: read whole and checked
    validation_record.record_valid(path, validation_record_layers(), sha256=with_sidecar(path))
    lazy = GeoPackageBoundaryData(path)
    assert type(lazy._small["nn_catchments"]).__name__ == "LazyLayer"
    assert type(eager._small["nn_catchments"]).__name__ == "EagerLayer"
    sites = validate_features(
        read_boundary_file(bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp")
    )
    compared = 0
    for dev in sites:
        want, got = eager.reference_for(dev.boundary), lazy.reference_for(dev.boundary)
        for layer in ("nn_catchments", "wwtw_catchments", "lpa_boundaries", "subcatchments"):
            w = [f for f in getattr(want, layer) if f.geometry.intersects(dev.boundary)]
            g = [f for f in getattr(got, layer) if f.geometry.intersects(dev.boundary)]
            # Same features in the same order: values and geometries exactly equal.
            assert [
                (type(f), getattr(f, "value", None), getattr(f, "edp_id", None), f.geometry.wkb)
                for f in g
            ] == [
                (type(f), getattr(f, "value", None), getattr(f, "edp_id", None), f.geometry.wkb)
                for f in w
            ]
            compared += len(w)
        assert got.coefficients == want.coefficients
    assert compared > 245


def validation_record_layers() -> list[str]:
    return [
        "nn_catchments",
        "wwtw_catchments",
        "lpa_boundaries",
        "subcatchments",
        "edp_boundaries",
        "excluded_areas",
    ]


def test_vouching_checks_every_layer_then_records_the_digest(tmp_path: Path) -> None:
    from nrf.bundles.vouch import vouch_for_bundle

    path = write_tiny(tmp_path / "good.gpkg")
    seen: list[tuple[str, int]] = []
    digest = vouch_for_bundle(path, progress=lambda name, n: seen.append((name, n)))
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    # tiny_layers(): 2 catchments, 3 works polygons, 1 LPA, 1 subcatchment, 2 EDP polygons,
    # 2 excluded areas, 20 x 10 squares.
    assert seen == [
        ("nn_catchments", 2),
        ("wwtw_catchments", 3),
        ("lpa_boundaries", 1),
        ("subcatchments", 1),
        ("edp_boundaries", 2),
        ("excluded_areas", 2),
        ("land_use_coefficients", 200),
    ]
    record = json.loads(validation_record.record_path(path).read_text())
    assert record["sha256"] == digest and "land_use_coefficients" in record["layers"]


def test_vouching_refuses_a_bundle_with_a_bad_coefficient_polygon(tmp_path: Path) -> None:
    from nrf.bundles.vouch import vouch_for_bundle

    layer = _coefficient_layer()
    attrs = {c: [*v, 1.0] for c, v in layer.attributes.items()}
    coeff = Layer(
        name=layer.name,
        columns=layer.columns,
        geometries=[*layer.geometries, BOWTIE],
        attributes=attrs,
    )
    path = write_tiny(tmp_path / "c.gpkg", layers={"coeff": coeff})
    with pytest.raises(BrokenBundle, match="fid 201 has an invalid geometry"):
        vouch_for_bundle(path)
    assert not validation_record.record_path(path).exists()


def test_rtree_lookups_by_sql_and_by_boxes_in_memory_agree(tmp_path: Path) -> None:
    """A lazy layer answers its first lookups with SQL, later ones from its boxes in memory."""
    import shutil

    from nrf.adapters.boundary_data.packaged import bundled_reference_data
    from nrf.adapters.boundary_data.small_layers import LazyLayer

    path = Path(shutil.copy(bundled_reference_data(), tmp_path / "norfolk.gpkg"))
    repo = GeoPackageBoundaryData(path)
    rng = np.random.default_rng(4)
    envelopes = [
        box(x, y, x + w, y + w)
        for x, y, w in zip(
            rng.uniform(575_000, 645_000, 300),
            rng.uniform(272_000, 346_000, 300),
            rng.uniform(1, 8_000, 300),
            strict=True,
        )
    ]
    for name in validation_record_layers():
        by_sql = LazyLayer(name, repo._schema[name], repo._connection)
        by_sql.SQL_LOOKUPS = 10**9
        in_memory = LazyLayer(name, repo._schema[name], repo._connection)
        in_memory.SQL_LOOKUPS = 0
        sql_fids = [by_sql._fids(e) for e in envelopes]
        assert sql_fids == [in_memory._fids(e) for e in envelopes]
        # They do find features (the demo's one small excluded area is met by few boxes).
        assert sum(map(len, sql_fids)) > (0 if name == "excluded_areas" else 100)


def test_a_builders_gate_can_record_its_own_checks(tmp_path: Path) -> None:
    from nrf.bundles.vouch import record_checked_by_gate

    path = write_tiny(tmp_path / "built.gpkg")
    digest = record_checked_by_gate(path)
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    record = json.loads(validation_record.record_path(path).read_text())
    assert record == {
        "sha256": digest,
        "checks_version": validation_record.CHECKS_VERSION,
        "layers": sorted([*validation_record_layers(), "land_use_coefficients"]),
    }


@pytest.mark.parametrize("trusted", [False, True], ids=["checked_whole", "read_lazily"])
def test_an_edp_drawn_on_a_catchments_outline_is_handed_over_as_that_catchment(
    tmp_path: Path, trusted: bool
) -> None:
    # The tiny bundle draws EDP 7 on the two catchments' outlines (0-1000 and 1000-2000
    # east): byte-identical polygons, so a site meets one object per outline, whichever
    # layer names it. The excluded area in the corner (0-100 by 900-1000) is its own.
    path = write_tiny(tmp_path / "shared.gpkg")
    if trusted:
        with_sidecar(path)
        GeoPackageBoundaryData(path)  # checks it whole and records it; the next opens lazily
        assert "edp_boundaries" in validation_record.trusted_layers(path)
    ref = GeoPackageBoundaryData(path).reference_for(box(50, 950, 60, 960))
    [catchment], [edp], [excluded] = ref.nn_catchments, ref.edps, ref.excluded_areas
    assert edp.geometry is catchment.geometry
    assert excluded.geometry is not catchment.geometry
    assert excluded.geometry.equals(box(0, 900, 100, 1000))
