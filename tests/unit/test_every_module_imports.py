"""Every module of the package imports: mypy is told to ignore missing imports, so a module
that names one that moved would otherwise only fail when its command runs."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import nrf

MODULES = sorted(m.name for m in pkgutil.walk_packages(nrf.__path__, "nrf."))


def test_the_package_has_its_layers() -> None:
    for layer in ("domain", "service_layer", "adapters", "entrypoints", "bundles"):
        assert f"nrf.{layer}" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_module_imports(name: str) -> None:
    importlib.import_module(name)
