"""docs/architecture.md answers a newcomer's four questions in at most two files each, truly."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "nrf"


def _rows() -> list[tuple[str, str]]:
    text = ARCHITECTURE.read_text()
    table = text.split("A newcomer's four questions", 1)[1].split("\n\n")[1]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    return [(question.strip(), where) for question, where in rows]


def test_there_are_four_questions() -> None:
    assert [q for q, _ in _rows()] == [
        "When does the email go?",
        "When is the message deleted?",
        "How is the levy worked out?",
        "What is the PATCH body sent to Defra's backend?",
    ]


def test_each_answer_is_at_most_two_files_that_exist_and_define_what_it_names() -> None:
    for question, where in _rows():
        named = re.findall(r"`([^`]+)`", where)
        files = [n for n in named if n.endswith((".py", ".json"))]
        assert 1 <= len(files) <= 2, question
        for file in files:
            assert (PACKAGE / file).is_file(), f"{question}: {file} is not in src/nrf"
        sources = "\n".join((PACKAGE / f).read_text() for f in files)
        for name in (n for n in named if n not in files):
            for part in name.split("."):
                defined = re.search(rf"^\s*(def|class) {re.escape(part)}\b", sources, re.M)
                assert defined, f"{question}: {part} is defined in none of {files}"
