"""Imports only point inwards: a layer never reaches back into one that wraps it."""

import ast
from pathlib import Path

import nrf

PACKAGE = Path(nrf.__file__).parent

# Each layer and the layers of nrf it may import (besides itself).
ALLOWED = {
    "domain": set(),
    "service_layer": {"domain"},
    "adapters": {"domain"},
    "bundles": {"domain", "adapters"},
    "entrypoints": {"domain", "service_layer", "adapters", "bundles"},
}


def _nrf_layers_imported(path: Path) -> set[str]:
    layers: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        layers.update(n.split(".")[1] for n in names if n.startswith("nrf.") and n.count(".") >= 1)
    return layers


def offenders(package: Path) -> list[str]:
    found: list[str] = []
    for layer, allowed in ALLOWED.items():
        for module in sorted((package / layer).rglob("*.py")):
            for imported in sorted(_nrf_layers_imported(module) - allowed - {layer}):
                found.append(f"{module.relative_to(package)} imports nrf.{imported}")
    return found


def test_every_layer_is_checked() -> None:
    on_disk = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert on_disk == set(ALLOWED)


def test_no_layer_imports_one_that_wraps_it() -> None:
    assert offenders(PACKAGE) == []


def test_a_backward_import_is_reported(tmp_path: Path) -> None:
    for layer in ALLOWED:
        (tmp_path / layer).mkdir()
    (tmp_path / "service_layer" / "use_case.py").write_text(
        "import json\nfrom nrf.domain import model\n\n\n"
        "def f():\n    from nrf.adapters.x import y\n"
    )
    (tmp_path / "domain" / "value.py").write_text("import nrf.entrypoints.cli\n")
    assert offenders(tmp_path) == [
        "domain/value.py imports nrf.entrypoints",
        "service_layer/use_case.py imports nrf.adapters",
    ]


def _lines(folder: Path) -> int:
    return sum(len(path.read_text().splitlines()) for path in folder.rglob("*.py"))


def test_the_entrypoints_are_thinner_than_what_they_drive() -> None:
    # Entrypoints read arguments, start processes and wire roots; a decision, a format or a
    # server's plumbing belongs to the domain, the service layer or an adapter (issue 29).
    entrypoints = _lines(PACKAGE / "entrypoints")
    driven = _lines(PACKAGE / "domain") + _lines(PACKAGE / "service_layer")
    assert entrypoints < driven, f"entrypoints {entrypoints} lines, domain + service {driven}"
