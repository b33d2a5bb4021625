"""One word, one thing: no class or public function name is defined twice in src, and the
glossary is true.

Two classes under one name (two ``Acknowledger``s, two ``RetryPolicy``s) made a reader pick
the wrong one, and so did two functions (``stamped`` overlaid form fields in one module and
stamped a digest in another); the glossary in docs/architecture.md is the house's vocabulary,
so each class it names must exist, once.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "nrf"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

# A class name as the glossary quotes it: `Receipt`, `OutcomeDecider` (not `read_job`, `/health`).
_CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")


def class_index(sources: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Class name -> where each definition is (``path:line``), nested classes included."""
    found: dict[str, list[str]] = defaultdict(list)
    for where, text in sources:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(f"{where}:{node.lineno}")
    return found


# Public top-level function names that repeat by design, each a convention callers name by module.
MAY_REPEAT = {
    "create_app": "falcon's pure factory, one per served app (api/app.py, health_app.py)",
    "get_app": "falcon's environment-reading factory beside create_app, one per served app",
    "get_gate": "the factory gunicorn's APP string names (module:get_gate()), one per served app",
    "main": "the entry point of a module run with python -m",
    "render": "a CSV output module's whole text, called as module.render (legacy_csv, levy_csv)",
}


def function_index(sources: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Public top-level function name -> where each definition is (``path:line``); methods
    and underscore helpers are a module's own business."""
    found: dict[str, list[str]] = defaultdict(list)
    for where, text in sources:
        for node in ast.parse(text).body:
            public = not getattr(node, "name", "_").startswith("_")
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and public:
                found[node.name].append(f"{where}:{node.lineno}")
    return found


def _src_sources() -> list[tuple[str, str]]:
    files = sorted(SRC.rglob("*.py"))
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in files]


def src_functions() -> dict[str, list[str]]:
    return function_index(_src_sources())


def src_classes() -> dict[str, list[str]]:
    return class_index(_src_sources())


def defined_twice(index: Mapping[str, list[str]]) -> dict[str, list[str]]:
    return {name: places for name, places in index.items() if len(places) > 1}


def glossary(markdown: str) -> dict[str, set[str]]:
    """Each glossary entry's words (its bold terms) -> the class names it quotes."""
    section = markdown.split("\n## Glossary\n", 1)[1].split("\n## ", 1)[0]
    entries: dict[str, set[str]] = {}
    for entry in re.split(r"\n(?=- \*\*)", section):
        if not entry.startswith("- **"):
            continue
        words = " / ".join(re.findall(r"\*\*([^*]+)\*\*", entry))
        quoted = re.findall(r"`([^`]+)`", entry)
        entries[words] = {q for q in quoted if _CLASS_NAME.fullmatch(q)}
    return entries


def glossary_problems(
    entries: Mapping[str, set[str]], index: Mapping[str, list[str]]
) -> dict[str, str]:
    """Per glossary word, each class it names that is not defined exactly once in src."""
    problems: dict[str, str] = {}
    for words, names in entries.items():
        for name in sorted(names):
            places = index.get(name, [])
            if len(places) != 1:
                problems[f"{words}: {name}"] = f"defined {len(places)} times {places}"
    return problems


def test_no_class_name_is_defined_twice_in_src() -> None:
    index = src_classes()
    # The walk must see the classes it polices, or the check passes on nothing.
    assert {"ProcessJob", "OutcomeDecider", "QueueAcknowledger", "RetryPolicy"} <= index.keys()
    assert defined_twice(index) == {}


def test_no_public_function_name_is_defined_in_two_modules_of_src() -> None:
    index = src_functions()
    # The walk must see the functions it polices, and each allowed name must still repeat.
    assert {"stamped", "stamped_digest", "where_delivered", "provenance_table"} <= index.keys()
    assert {name: len(index[name]) > 1 for name in MAY_REPEAT} == dict.fromkeys(MAY_REPEAT, True)
    repeated = defined_twice(index)
    assert {name: places for name, places in repeated.items() if name not in MAY_REPEAT} == {}


def test_every_class_the_glossary_names_is_defined_once_in_src() -> None:
    entries = glossary(ARCHITECTURE.read_text(encoding="utf-8"))
    # The parse must reach the entries that once disagreed with the code.
    words = " / ".join(entries)
    for word in ("receive", "heartbeat", "outcome", "notification", "settle", "acknowledge"):
        assert word in words
    assert {"Receipt", "OutcomeDecider", "QueueAcknowledger", "NotificationLedger"} <= set().union(
        *entries.values()
    )
    assert glossary_problems(entries, src_classes()) == {}


def test_the_checks_flag_one_name_for_two_classes() -> None:
    index = class_index(
        [
            ("service_layer/job_outcome.py", "class Acknowledger:\n    pass\n"),
            ("worker/acks.py", "import x\n\nclass Acknowledger:\n    pass\n"),
            ("worker/loop.py", "class Loop:\n    class Receipt:\n        pass\n"),
        ]
    )
    assert defined_twice(index) == {
        "Acknowledger": ["service_layer/job_outcome.py:1", "worker/acks.py:3"]
    }
    doc = (
        "# House\n\n## Glossary\n\n- **outcome**: decided by `Acknowledger` (`read_job`).\n"
        "- **receipt**: `Receipt`.\n- **ghost**: `Nowhere`.\n\n## Next\n- **not**: `Loop`.\n"
    )
    functions = function_index(
        [
            ("service_layer/quotes.py", "def stamped(features):\n    pass\n"),
            (
                "adapters/bundle_digest.py",
                "class D:\n    def stamped(self):\n        pass\n\n"
                "def _stamp():\n    pass\n\n\ndef stamped(path):\n    pass\n",
            ),
        ]
    )
    assert defined_twice(functions) == {
        "stamped": ["service_layer/quotes.py:1", "adapters/bundle_digest.py:9"]
    }
    entries = glossary(doc)
    assert entries == {"outcome": {"Acknowledger"}, "receipt": {"Receipt"}, "ghost": {"Nowhere"}}
    assert glossary_problems(entries, index) == {
        "outcome: Acknowledger": (
            "defined 2 times ['service_layer/job_outcome.py:1', 'worker/acks.py:3']"
        ),
        "ghost: Nowhere": "defined 0 times []",
    }
