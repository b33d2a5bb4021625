"""The mutation pass's list matches the code: each mutant can be made, and is made only once.

``python -m benchmarks.mutants`` is slow, so it is run by hand; this checks its list on every
test run, so a change to the code that moves a mutant's text away fails here, at once, rather
than leaving a mutant that no longer tests anything.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_the_list() -> object:
    """benchmarks/mutant_list.py by its path: benchmarks is not on the tests' import path."""
    spec = importlib.util.spec_from_file_location(
        "mutant_list", ROOT / "benchmarks" / "mutant_list.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass looks its module up while it is made
    spec.loader.exec_module(module)
    return module


_LIST: Any = _load_the_list()
MUTANTS: tuple[Any, ...] = _LIST.MUTANTS
Mutant, problems = _LIST.Mutant, _LIST.problems


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_can_be_made_exactly_once_and_names_existing_tests(mutant: Any) -> None:
    assert problems(mutant, ROOT) == []


def test_the_names_are_unique() -> None:
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names))


def test_a_mutant_whose_text_moved_or_repeats_is_reported(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "code.py").write_text("x = 1\ny = 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_code.py").write_text("")

    def mutant(original: str, test: str = "tests/test_code.py") -> Any:
        return Mutant(
            name="m", file="src/code.py", original=original, mutated="z", tests=(test,), why=""
        )

    assert problems(mutant("x = 1"), tmp_path) == []
    assert problems(mutant("= 1"), tmp_path) == [
        "m: its original text occurs 2 times in src/code.py"
    ]
    assert problems(mutant("w = 1"), tmp_path) == [
        "m: its original text occurs 0 times in src/code.py"
    ]
    assert problems(mutant("x = 1", "tests/test_gone.py::t"), tmp_path) == [
        "m: no test file tests/test_gone.py"
    ]
