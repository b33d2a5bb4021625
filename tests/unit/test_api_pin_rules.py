"""Each API process holds its bundle to the pin, and is neither healthy nor ready without it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import falcon.testing
import pytest

from fakes import FakeResultStore
from nrf.adapters.boundary_data.packaged import bundled_reference_data
from nrf.adapters.environment.settings import load_settings
from nrf.domain.errors import NrfError
from nrf.domain.model import BundleInfo
from nrf.domain.validation import DEFAULT_LIMITS
from nrf.entrypoints.api.app import create_app, open_pinned_bundle
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.services import ApiServices
from nrf.entrypoints.reference_bundle import SYNTHETIC_REFUSED
from nrf.entrypoints.roots.core import Core, build

KEY = "unit-key-0123456789"


def client(unavailable: str | None, bundle: BundleInfo | None) -> falcon.testing.TestClient:
    store = FakeResultStore()
    services = ApiServices(
        quote=None,
        check=None,
        reference_for=None,
        store=store,
        files=None,
        limits=DEFAULT_LIMITS,
        unavailable=unavailable,
        bundle=bundle,
    )
    return falcon.testing.TestClient(create_app(services, ApiKeys([KEY])))


def test_a_process_that_cannot_quote_is_neither_healthy_nor_ready() -> None:
    api = client("bundle file not found: /x.gpkg", None)
    health, ready = api.simulate_get("/health"), api.simulate_get("/ready")
    assert (health.status_code, health.json["reason"]) == (503, "bundle_not_loaded")
    assert (ready.status_code, ready.json["reason"]) == (503, "bundle_not_loaded")
    quote = api.simulate_post("/v1/quotes", body="{}", headers={"x-api-key": KEY})
    assert (quote.status_code, quote.json["code"]) == (503, "broken_bundle")


def test_ready_names_the_bundle_it_quotes_from() -> None:
    info = BundleInfo(
        name="national", version="2026.2", created="", description="", sha256="c" * 64
    )
    ready = client(None, info).simulate_get("/ready")
    assert ready.status_code == 200
    assert ready.json == {
        "status": "ready",
        "reason": "ready",
        "bundle_name": "national",
        "bundle_version": "2026.2",
        "bundle_sha256": "c" * 64,
        "synthetic": False,
    }


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _open(env: dict[str, str]) -> BundleInfo:
    settings = load_settings(env)
    return open_pinned_bundle(settings, build(Core, settings=settings))


def test_an_s3_location_is_never_opened_as_a_path() -> None:
    # The old fault: Path("s3://b/k.gpkg") is "s3:/b/k.gpkg", a file not found.
    env = {"NRF_REFERENCE_DATA": "s3://nrf-reference/b/k.gpkg"}
    with pytest.raises(NrfError) as caught:
        _open({**env, "NRF_REFERENCE_DATA_SHA256": "a" * 64})
    assert caught.value.code == "reference_data_not_fetched"
    assert "s3://nrf-reference/b/k.gpkg" in caught.value.message


def test_a_file_other_than_the_pinned_one_is_refused() -> None:
    env = {
        "NRF_REFERENCE_DATA": str(bundled_reference_data()),
        "NRF_REFERENCE_DATA_SHA256": "ab" * 32,
        "NRF_ALLOW_SYNTHETIC_DATA": "true",
    }
    with pytest.raises(NrfError) as caught:
        _open(env)
    assert caught.value.code == "reference_data_digest_mismatch"


def test_synthetic_data_needs_the_opt_in() -> None:
    with pytest.raises(NrfError) as caught:
        _open({})
    assert caught.value.code == SYNTHETIC_REFUSED
    info = _open({"NRF_ALLOW_SYNTHETIC_DATA": "true"})
    assert info.synthetic and info.sha256 == _digest(bundled_reference_data())
