"""NRF_REFERENCE_DATA and its pin: a path or one S3 object, and S3 only with a digest."""

from __future__ import annotations

from pathlib import Path

import pytest

from nrf.adapters.boundary_data.bundle_location import (
    S3Location,
    parse_location,
    parse_s3_uri,
    parse_sha256,
)
from nrf.adapters.environment.settings import ConfigError, load_settings

DIGEST = "0123456789abcdef" * 4


def test_a_path_or_an_s3_object() -> None:
    assert parse_location("/data/national.gpkg") == Path("/data/national.gpkg")
    where = parse_location("s3://nrf-bundles/ref/national/2026.1/national-2026.1.gpkg")
    assert where == S3Location("nrf-bundles", "ref/national/2026.1/national-2026.1.gpkg")
    assert isinstance(where, S3Location) and where.file_name == "national-2026.1.gpkg"
    assert str(where) == "s3://nrf-bundles/ref/national/2026.1/national-2026.1.gpkg"


@pytest.mark.parametrize(
    "text",
    [
        "s3://nrf-bundles",
        "s3://nrf-bundles/",
        "s3://nrf-bundles/folder/",
        "s3://Bad_Bucket/k",
        "https://example.com/national.gpkg",
    ],
)
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_location(text)


def test_a_publish_destination_may_be_a_folder() -> None:
    assert parse_s3_uri("s3://nrf-bundles/ref/", prefix=True) == S3Location("nrf-bundles", "ref/")
    assert parse_s3_uri("s3://nrf-bundles", prefix=True) == S3Location("nrf-bundles", "")


def test_a_digest_is_64_hex_digits() -> None:
    assert parse_sha256(DIGEST.upper()) == DIGEST
    for bad in (DIGEST[:-1], DIGEST + "0", "g" * 64):
        with pytest.raises(ValueError):
            parse_sha256(bad)


def test_settings_take_the_pin_and_the_opt_in() -> None:
    settings = load_settings(
        {
            "NRF_REFERENCE_DATA": "s3://nrf-bundles/ref/n.gpkg",
            "NRF_REFERENCE_DATA_SHA256": DIGEST,
            "NRF_ALLOW_SYNTHETIC_DATA": "TRUE",
            "NRF_REFERENCE_DATA_CACHE": "/var/cache/nrf",
        }
    )
    assert settings.reference_data_sha256 == DIGEST
    assert settings.allow_synthetic_data is True
    assert settings.reference_data_cache == "/var/cache/nrf"
    assert load_settings({}).allow_synthetic_data is False


def test_every_bad_pin_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(
            {
                "NRF_REFERENCE_DATA": "s3://nrf-bundles/ref/n.gpkg",
                "NRF_ALLOW_SYNTHETIC_DATA": "yes please",
            }
        )
    problems = caught.value.problems
    assert len(problems) == 2
    assert any(p.startswith("NRF_ALLOW_SYNTHETIC_DATA=") for p in problems)
    assert any(p.startswith("NRF_REFERENCE_DATA_SHA256 is required") for p in problems)
    with pytest.raises(ConfigError) as bad_digest:
        load_settings({"NRF_REFERENCE_DATA": "/data/n.gpkg", "NRF_REFERENCE_DATA_SHA256": "abc"})
    [problem] = bad_digest.value.problems
    assert problem.startswith("NRF_REFERENCE_DATA_SHA256=")
    with pytest.raises(ConfigError) as bad_uri:
        load_settings(
            {"NRF_REFERENCE_DATA": "s3://nrf-bundles/", "NRF_REFERENCE_DATA_SHA256": DIGEST}
        )
    [problem] = bad_uri.value.problems
    assert problem.startswith("NRF_REFERENCE_DATA=")
