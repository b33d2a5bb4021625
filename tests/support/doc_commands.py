"""Every shell command line in the code blocks of README.md and docs/*.md, as a reader copies it,
and every command written inline in their prose.

A ```sh (bash, shell, console) block is all commands; an unlabelled block (diagrams, output,
settings) counts a line only when it starts like a command (a program below, or a path such
as scripts/demo), so a command pasted there is not missed. Continuations are joined, a ``$``
prompt and a trailing ``# comment`` dropped, and blanks collapsed.

Inline, `code` in a sentence counts when it starts with a program a reader runs (a script of
the repository, ``python -m``, uv, pip, docker, curl...): `scripts/bench --polygons 5460000`
is copied from prose as often as from a block. An inline `nrf ...` is not listed here: most
name a subcommand in passing, and test_docs_commands checks each one's options.
"""

from __future__ import annotations

import re
from pathlib import Path

from attrs import frozen

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^[ \t]*```([\w+-]*)[ \t]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)
SHELL = frozenset({"sh", "bash", "shell", "console", "zsh"})
PROGRAMS = frozenset(
    {"nrf", "curl", "docker", "aws", "python", "python3", "uv", "pip", "git", "make", "bash"}
)
PATHS = ("scripts/", "./", ".venv/bin/", ".ci/")
INLINE_PROGRAMS = frozenset(
    {"python", "python3", "py", "uv", "pip", "docker", "aws", "curl", "apt-get", "pytest"}
)
INLINE_PATHS = ("scripts/", ".venv/bin/", ".venv\\", ".ci/", "/usr/bin/")
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")


@frozen
class DocCommand:
    """A command line and the document that shows it."""

    doc: str  # relative to the repository, e.g. docs/api.md
    command: str


def program(command: str) -> str:
    """The command's first word after any ``NAME=value`` settings ("" when none)."""
    words = [w for w in command.split() if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", w)]
    return words[0] if words else ""


def _looks_like_command(line: str) -> bool:
    first = program(line)
    return first in PROGRAMS or first.startswith(PATHS)


def doc_commands() -> list[DocCommand]:
    """Each command line once per document, in the order shown."""
    found: list[DocCommand] = []
    for path in DOCS:
        doc = str(path.relative_to(ROOT))
        for language, body in FENCE.findall(path.read_text(encoding="utf-8")):
            if language and language not in SHELL:
                continue
            lines: list[str] = []
            for raw in body.replace("\\\n", " ").splitlines():
                line = re.sub(r"(^|\s+)#.*$", "", raw.strip().removeprefix("$ "))
                line = " ".join(line.split())
                if lines and raw[:1].isspace() and line.startswith(("[", "-")):
                    lines[-1] += " " + line  # a synopsis wrapped for reading
                elif line and (language or _looks_like_command(line)):
                    lines.append(line)
            for line in lines:
                if DocCommand(doc=doc, command=line) not in found:
                    found.append(DocCommand(doc=doc, command=line))
    return found


def _prose(text: str) -> str:
    """The document without its code blocks."""
    return FENCE.sub("", text)


def inline_commands() -> list[DocCommand]:
    """Each command written as `inline code` in prose, once per document, in order."""
    found: list[DocCommand] = []
    for path in DOCS:
        doc = str(path.relative_to(ROOT))
        for span in INLINE.findall(_prose(path.read_text(encoding="utf-8"))):
            line = " ".join(span.split())
            first = program(line)
            runnable = first in INLINE_PROGRAMS or first.startswith(INLINE_PATHS)
            command = DocCommand(doc=doc, command=line)
            if runnable and not first.endswith("nrf") and command not in found:
                found.append(command)
    return found
