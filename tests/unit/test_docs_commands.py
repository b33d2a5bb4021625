"""Every `nrf` command README.md and docs/ show is one the command line has, with each of
its options, and a literal one parses as written (the API example is run in full by
tests/integration/test_docs_api_examples.py; `nrf assess` of the sample by test_cli_assess).

Commands are taken from ```sh blocks (continuations joined), which a reader copies, and from
`inline code`, which names a command in prose (often without its input). Every one is checked
option by option; a block's command without placeholders (words in capitals such as SITES,
`[...]`, `…`) is also parsed by `nrf`'s own parser as written.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from nrf.entrypoints.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
INLINE = re.compile(r"`((?:\.venv/bin/)?nrf [a-z][^`]*)`")
BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)


def commands() -> list[tuple[str, str, bool]]:
    found: dict[str, tuple[str, bool]] = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        blocks = [
            m for block in BLOCK.findall(text) for m in block.replace("\\\n", " ").split("\n")
        ]
        inline = [" ".join(m.split()) for m in INLINE.findall(text)]
        for line, in_block in [*((b, True) for b in blocks), *((i, False) for i in inline)]:
            line = re.sub(r"\s+#.*$", "", line).strip()
            words = line.split()
            while words and "=" in words[0]:  # VAR=value before the command
                words.pop(0)
            if words and words[0] in ("nrf", ".venv/bin/nrf"):
                found.setdefault(" ".join(words), (doc.name, in_block))
    return sorted((command, doc, in_block) for command, (doc, in_block) in found.items())


COMMANDS = commands()


def subparser(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    """The (sub)command's parser that ``words`` name, and the words after it."""
    while words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or words[0] not in subs[0].choices:
            break
        parser = subs[0].choices[words.pop(0)]
    return parser


def test_the_docs_show_the_commands_this_test_reads() -> None:
    shown = {c.split()[1] for c, _, _ in COMMANDS}
    assert any(in_block for _, _, in_block in COMMANDS)
    assert {"assess", "serve", "bundle", "status", "dlq", "worker", "demo"} <= shown


@pytest.mark.parametrize(("command", "doc", "in_block"), COMMANDS, ids=[c for c, *_ in COMMANDS])
def test_each_command_in_the_docs_is_one_nrf_has(command: str, doc: str, in_block: bool) -> None:
    words = command.split()[1:]
    parser = subparser(build_parser(), list(words))
    options = {o for a in parser._actions for o in a.option_strings}
    for word in words:
        flag = word.strip("[]").split("=")[0]
        if flag.startswith("--"):
            assert flag in options, f"{doc}: `{command}`: {flag} is not an option of it"
    placeholder = re.search(r"\[|…|\b[A-Z][A-Z_.]{2,}\b|<", command)
    if in_block and placeholder is None:
        # Copied as written: nrf's own parser takes it (it is not run here: that needs a
        # delivery or AWS; parsing proves the spelling, the order and each value's form).
        try:
            build_parser().parse_args(shlex.split(command)[1:])
        except SystemExit as exit_:
            raise AssertionError(f"{doc}: `{command}` does not parse") from exit_
