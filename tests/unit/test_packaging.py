"""The package: geopandas only for the benchmark, and a lock that matches pyproject.toml."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCK = tomllib.loads((ROOT / "uv.lock").read_text())


def imported_modules(folder: Path) -> set[str]:
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_geopandas_is_not_a_runtime_dependency_and_src_never_imports_it() -> None:
    runtime = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["project"]["dependencies"]}
    assert not {"geopandas", "pandas"} & runtime
    bench = PYPROJECT["project"]["optional-dependencies"]["bench"]
    assert any(Requirement(r).name == "geopandas" for r in bench)
    assert not {"geopandas", "pandas"} & imported_modules(ROOT / "src")


def test_the_benchmark_script_installs_the_bench_extra() -> None:
    assert "geopandas" in imported_modules(ROOT / "benchmarks")
    bench = (ROOT / "scripts" / "bench").read_text()
    assert re.search(r"scripts/bootstrap .*--extra bench", bench)


def _declared() -> set[tuple[str, str, tuple[str, ...], str]]:
    """(name, specifier, extras, extra it belongs to) for every requirement in pyproject."""
    groups = {"": PYPROJECT["project"]["dependencies"]}
    groups |= PYPROJECT["project"]["optional-dependencies"]
    found: set[tuple[str, str, tuple[str, ...], str]] = set()
    for extra, requirements in groups.items():
        for text in requirements:
            r = Requirement(text)
            found.add((canonicalize_name(r.name), str(r.specifier), tuple(sorted(r.extras)), extra))
    return found


def _locked() -> set[tuple[str, str, tuple[str, ...], str]]:
    (nrf,) = [p for p in LOCK["package"] if p["name"] == "nrf"]
    found: set[tuple[str, str, tuple[str, ...], str]] = set()
    for r in nrf["metadata"]["requires-dist"]:
        marker = re.fullmatch(r"extra == '([\w-]*)'", r.get("marker", "extra == ''"))
        assert marker, r
        found.add(
            (
                canonicalize_name(r["name"]),
                r.get("specifier", ""),
                tuple(sorted(r.get("extras", []))),
                marker.group(1),
            )
        )
    return found


def test_uv_lock_was_made_from_this_pyproject() -> None:
    # A dependency edited in pyproject.toml without `scripts/uv lock` would install stale
    # versions (bootstrap and the image install with --frozen): catch it here.
    assert _declared() == _locked(), "uv.lock is stale: run scripts/uv lock"


def test_bootstrap_installs_exactly_the_lock() -> None:
    bootstrap = (ROOT / "scripts" / "bootstrap").read_text()
    assert re.search(r"scripts/uv sync --frozen .*--extra test", bootstrap)
    assert "pip install" not in bootstrap
