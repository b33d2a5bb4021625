"""One word, one thing: no class name is defined twice in src, and the glossary is true.

Two classes under one name (two ``Acknowledger``s, two ``RetryPolicy``s) made a reader pick
the wrong one; the glossary in docs/architecture.md is the house's vocabulary, so each class
it names must exist, once.
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


def src_classes() -> dict[str, list[str]]:
    files = sorted(SRC.rglob("*.py"))
    return class_index((str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in files)


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
    entries = glossary(doc)
    assert entries == {"outcome": {"Acknowledger"}, "receipt": {"Receipt"}, "ghost": {"Nowhere"}}
    assert glossary_problems(entries, index) == {
        "outcome: Acknowledger": (
            "defined 2 times ['service_layer/job_outcome.py:1', 'worker/acks.py:3']"
        ),
        "ghost: Nowhere": "defined 0 times []",
    }
