"""A root per process, each a screen long, and no import cycle anywhere in nrf.

One container for every process grew to 45 providers and an import cycle (container ↔
worker/job_processes, issue 29): each process's root now names only what that process runs,
over the shared core, and a cycle or a root past a screen fails here rather than in review.
Imports inside functions count: a lazy import still ties the two modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nrf

PACKAGE = Path(nrf.__file__).parent
ROOTS = PACKAGE / "entrypoints" / "roots"
# The shared core and the providers' helper functions are not a process's root.
SHARED = {"__init__.py", "core.py", "builders.py"}
SCREEN = 120


def _module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, known: set[str]) -> set[str]:
    """The nrf modules ``path`` imports, anywhere in it (``from a import b`` may name a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found & known


def cycles(package: Path) -> list[list[str]]:
    """Each group of modules that import one another round a loop (Tarjan's components)."""
    paths = {_module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    known = set(paths)
    edges = {name: sorted(_imports(path, known) - {name}) for name, path in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in edges[name]:
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for name in sorted(edges):
        if name not in index:
            visit(name)
    return sorted(found)


def long_roots(roots: Path) -> list[str]:
    return [
        f"{path.name}: {lines} lines"
        for path in sorted(roots.glob("*.py"))
        if path.name not in SHARED and (lines := len(path.read_text().splitlines())) > SCREEN
    ]


def test_each_process_has_a_root() -> None:
    assert {p.name for p in ROOTS.glob("*.py")} - SHARED == {
        "api.py",
        "dead_letters.py",
        "job.py",
        "ops.py",
        "supervisor.py",
        "worker.py",
    }


def test_each_root_is_a_screen_long() -> None:
    assert long_roots(ROOTS) == []


def test_no_import_cycle_in_nrf() -> None:
    assert cycles(PACKAGE) == []


def test_a_planted_cycle_and_a_long_root_are_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "worker").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "worker" / "__init__.py").write_text("")
    (package / "container.py").write_text("from pkg.worker import loop\n")
    (package / "worker" / "loop.py").write_text("def f():\n    from pkg.container import x\n")
    (package / "alone.py").write_text("import pkg.container\n")
    assert cycles(package) == [["pkg.container", "pkg.worker.loop"]]
    (package / "worker" / "loop.py").write_text("x = 1\n")
    assert cycles(package) == []
    (package / "job.py").write_text("x = 1\n" * (SCREEN + 1))
    (package / "core.py").write_text("x = 1\n" * (SCREEN + 1))
    assert long_roots(package) == [f"job.py: {SCREEN + 1} lines"]
