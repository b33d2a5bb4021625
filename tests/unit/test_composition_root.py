"""Entrypoints construct no use case or adapter by hand: the roots (entrypoints/roots/) do.

Each process has one small root over a shared core (roots/core.py). The test harness
(tests/support) is held to the same rule: it takes its use cases from a process's root with
fakes as overrides (support/wiring.py), so what the tests drive is that process's own wiring.

A use case or adapter is a class from ``nrf.service_layer`` or ``nrf.adapters`` that is not a
record (attrs), an exception or an enum: values may be built anywhere, collaborators are wired
in one place, or the second root drifts from the first (issue 18).
"""

from __future__ import annotations

import ast
import enum
import importlib
from pathlib import Path

import attrs

import nrf

PACKAGE = Path(nrf.__file__).parent
TESTS = Path(__file__).parents[1]
HARNESS = TESTS / "support"
# The job path's pieces, wired into one another: no test builds them by hand either (a unit
# test of any other single use case may build it over its fakes; these are never single).
JOB_PATH = (
    "ProcessJob",
    "FailJob",
    "JobEnd",
    "OutcomeDecider",
    "NotificationLedger",
    "DrainDeadLetters",
)
ROOTS = "roots"
WIRED_LAYERS = ("nrf.service_layer", "nrf.adapters")


def _is_component(module: str, name: str) -> bool:
    """A class of a wired layer that is not a value: a use case or an adapter."""
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return False
    if not isinstance(found, type):
        return False
    value = attrs.has(found) or issubclass(found, BaseException | enum.Enum)
    return not value


def _constructions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    imported: dict[str, str] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith(WIRED_LAYERS)
        ):
            for alias in node.names:
                imported[alias.asname or alias.name] = str(node.module)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        # Cls(...) or Cls.from_something(...), with Cls imported from a wired layer.
        name = func.id if isinstance(func, ast.Name) else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name = func.value.id
        if name in imported and _is_component(imported[name], name):
            found.append(f"{path.name}:{node.lineno} builds {name}")
    return found


def offenders(entrypoints: Path) -> list[str]:
    return [
        found
        for module in sorted(entrypoints.rglob("*.py"))
        if ROOTS not in module.relative_to(entrypoints).parts[:-1]
        for found in _constructions(module)
    ]


def test_no_entrypoint_builds_a_use_case_or_adapter_outside_the_roots() -> None:
    assert offenders(PACKAGE / "entrypoints") == []


def test_the_test_harness_builds_no_use_case_or_adapter_outside_the_roots() -> None:
    assert offenders(HARNESS) == []


def test_no_test_wires_the_job_path_by_hand() -> None:
    found = [
        found
        for module in sorted(TESTS.rglob("*.py"))
        for found in _constructions(module)
        if found.endswith(tuple(f" builds {name}" for name in JOB_PATH))
    ]
    assert found == []


def test_a_planted_offender_is_found(tmp_path: Path) -> None:
    (tmp_path / "ops.py").write_text(
        "from nrf.service_layer.housekeeping import Housekeep, HousekeepingReport\n"
        "from nrf.adapters.job_queue.sqs_job_queue import SqsJobQueue\n"
        "from nrf.domain.jobs import QueueFatalError\n"
        "from nrf.service_layer.stall_alerts import StallReport\n\n\n"
        "def run(c, s):\n"
        "    tidy = Housekeep(inventory=c.i, records=c.r, clock=c.c, retention_days=9)\n"
        "    queue = SqsJobQueue.from_queue_name(c.sqs, 'q')\n"
        "    ok = StallReport(action=None, waiting=0, stalled_for=None)\n"
        "    raise QueueFatalError('no queue')\n"
    )
    # A root may build anything.
    (tmp_path / ROOTS).mkdir()
    (tmp_path / ROOTS / "ops.py").write_text(
        "from nrf.service_layer.housekeeping import Housekeep\n\nx = Housekeep()\n"
    )
    assert offenders(tmp_path) == ["ops.py:8 builds Housekeep", "ops.py:9 builds SqsJobQueue"]
