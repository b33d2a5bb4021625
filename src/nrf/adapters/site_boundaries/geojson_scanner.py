"""A GeoJSON FeatureCollection read a feature at a time, for files too large to parse whole.

``json.loads`` of a national file (hundreds of MB) takes several GB. Here the top-level
object is walked by hand and each member value, and each item of ``features``, is decoded by
the standard library's own decoder (``raw_decode``), so every value is exactly what
``json.loads`` gives; only one item and a chunk of text are held at a time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from nrf.adapters.safe_json import RepeatedName, unique_members
from nrf.domain.errors import InvalidInput, Problem

CHUNK = 1 << 20  # characters read at a time
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder(object_pairs_hook=unique_members)


def _unreadable(message: str) -> InvalidInput:
    return InvalidInput([Problem(code="unreadable_file", message=message)])


class _Text:
    """The file's text, read a chunk at a time as the walk needs it."""

    def __init__(self, handle: TextIO, chunk: int, on_chunk: Callable[[str], None]) -> None:
        self.handle = handle
        self.chunk = chunk
        self.on_chunk = on_chunk
        self.buffer = ""
        self.position = 0

    def more(self) -> bool:
        text = self.handle.read(self.chunk)
        if not text:
            return False
        self.on_chunk(text)
        self.buffer = self.buffer[self.position :] + text
        self.position = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            match = _SPACE.match(self.buffer, self.position)
            self.position = match.end() if match else self.position
            if self.position < len(self.buffer):
                return self.buffer[self.position]
            if not self.more():
                return ""

    def take(self, expected: str) -> str:
        found = self.peek()
        if found not in expected:
            raise _unreadable(
                f"the file is not valid JSON (expected {expected!r}, found {found!r})"
            )
        self.position += 1
        return found

    def value(self) -> object:
        """The next JSON value, decoded by the standard decoder (read on until it is whole)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buffer, self.position)
            except RepeatedName as error:  # whole, and wrong: more text would not mend it
                raise _unreadable(f"the file is not valid JSON ({error})") from None
            except json.JSONDecodeError as error:
                if self.more():
                    continue
                raise _unreadable(f"the file is not valid JSON ({error})") from None
            # A number at the very end of the buffer may go on in the next chunk.
            if end == len(self.buffer) and self.more():
                continue
            self.position = end
            return value


def open_text(path: Path) -> TextIO:
    """The file as text in the encoding JSON allows (UTF-8, or UTF-16/32 with a BOM)."""
    with path.open("rb") as raw:
        encoding = json.detect_encoding(raw.read(4))
    return path.open(encoding=encoding, newline="")


def walk(
    path: Path,
    on_item: Callable[[object], None],
    *,
    chunk: int = CHUNK,
    on_chunk: Callable[[str], None] = lambda _: None,
) -> dict[str, object]:
    """Every top-level member of the document but ``features``, whose items go to ``on_item``
    in order; the document must be one JSON object (anything else is unreadable_file)."""
    with open_text(path) as handle:
        text = _Text(handle, chunk, on_chunk)
        members: dict[str, object] = {}
        text.take("{")
        if text.peek() == "}":
            text.position += 1
        else:
            while True:
                key = text.value()
                if not isinstance(key, str):
                    raise _unreadable("the file is not valid JSON (a member name is not text)")
                text.take(":")
                if key == "features" and text.peek() == "[":
                    members[key] = []  # a list: its items went to on_item
                    text.position += 1
                    if text.peek() == "]":
                        text.position += 1
                    else:
                        while True:
                            on_item(text.value())
                            if text.take(",]") == "]":
                                break
                else:
                    members[key] = text.value()
                if text.take(",}") == "}":
                    break
        if text.peek() != "":
            raise _unreadable("the file is not valid JSON (text after the end of the document)")
    return members


def items(path: Path, *, chunk: int = CHUNK) -> Iterator[object]:
    """The items of ``features`` one at a time, as the file is read (checked by ``walk``)."""
    with open_text(path) as handle:
        text = _Text(handle, chunk, lambda _: None)
        text.take("{")
        while text.peek() != "}":
            key = text.value()
            text.take(":")
            if key == "features" and text.peek() == "[":
                text.position += 1
                if text.peek() == "]":
                    return
                while True:
                    yield text.value()
                    if text.take(",]") == "]":
                        return
            text.value()
            text.take(",}")
