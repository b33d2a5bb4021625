"""The domain stays pure: no adapters, entrypoints or infrastructure imports."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import nrf.domain

DOMAIN = Path(nrf.domain.__file__).parent
FORBIDDEN = (
    "nrf.adapters",
    "nrf.entrypoints",
    "boto3",
    "botocore",
    "falcon",
    "gunicorn",
    "requests",
    "urllib3",
    "http",
    "notifications_python_client",
    "sqlite3",
    "pyogrio",
    "geopandas",
    "socket",
)


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_no_domain_module_imports_infrastructure() -> None:
    modules = sorted(DOMAIN.glob("*.py"))
    assert len(modules) > 5
    offenders = [
        f"{m.name}: {name}"
        for m in modules
        for name in _imports(m)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    ]
    assert offenders == []


def test_importing_the_domain_loads_no_infrastructure() -> None:
    code = (
        "import importlib, json, pkgutil, sys; import nrf.domain as d\n"
        "for m in pkgutil.iter_modules(d.__path__):\n"
        "    importlib.import_module('nrf.domain.' + m.name)\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout
    )
    leaked = [m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN[:-1])]
    assert leaked == []
