"""Where `nrf bundle publish` puts a bundle: one key per name and version, safe characters only."""

from __future__ import annotations

from nrf.adapters.boundary_data.bundle_location import S3Location
from nrf.bundles.publish import Published, bundle_key
from nrf.domain.model import BundleInfo


def _info(name: str, version: str) -> BundleInfo:
    return BundleInfo(
        name=name, version=version, created="2026-07-01", description="", sha256="ab" * 32
    )


def test_the_key_is_prefix_name_version() -> None:
    assert bundle_key("ref/", _info("national", "2026.07")) == (
        "ref/national/2026.07/national-2026.07.gpkg"
    )
    assert bundle_key("", _info("national", "2026.07")) == "national/2026.07/national-2026.07.gpkg"
    assert bundle_key("/a/b/", _info("n", "1")) == "a/b/n/1/n-1.gpkg"


def test_unsafe_characters_become_hyphens() -> None:
    # "Defra NN / July" → "Defra-NN-July"; "2026 07 (rc)" → "2026-07-rc"
    assert bundle_key("ref", _info("Defra NN / July", "2026 07 (rc)")) == (
        "ref/Defra-NN-July/2026-07-rc/Defra-NN-July-2026-07-rc.gpkg"
    )


def test_the_pin_is_the_uri_and_the_digest() -> None:
    published = Published(S3Location("b", "ref/n/1/n-1.gpkg"), _info("n", "1"))
    assert published.pin() == {
        "NRF_REFERENCE_DATA": "s3://b/ref/n/1/n-1.gpkg",
        "NRF_REFERENCE_DATA_SHA256": "ab" * 32,
    }
