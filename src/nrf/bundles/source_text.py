"""Text from a delivered file must be UTF-8: other bytes are refused, never guessed.

A Latin-1 or cp1252 export looks the same as UTF-8 until a name has an accent, and then the
same bytes mean different letters in each; which one was meant cannot be known from the file,
so the build names the file, row and column and asks for a UTF-8 export instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from nrf.bundles.qc.report import QcReport

ENCODING = "source_encoding"
NUL = bytes(1)
BOM = "\ufeff"


def first_bad_byte(data: bytes) -> tuple[int, str] | None:
    """Where and why ``data`` is not clean UTF-8 text, or None when it is."""
    nul = data.find(NUL)
    if nul >= 0:
        return nul, nul_at(nul)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start, not_utf8_at(exc.start, data[exc.start : exc.start + 1])
    return None


def nul_at(offset: int) -> str:
    """Why text with a NUL byte at ``offset`` is not text."""
    return f"a NUL byte at offset {offset} (UTF-16, or not a text file?)"


def not_utf8_at(offset: int, byte: bytes) -> str:
    """Why text whose first byte outside UTF-8 is ``byte``, at ``offset``, is refused."""
    why = f"byte 0x{byte.hex()} at offset {offset} is not UTF-8{_likely(byte)}"
    return f"{why}: save the file as UTF-8"


def _likely(byte: bytes) -> str:
    """What the byte is in Windows-1252, the usual culprit ("0xa3 is £ in Windows-1252")."""
    try:
        char = byte.decode("cp1252")
    except UnicodeDecodeError:
        return ""
    return f"; 0x{byte.hex()} is {char!r} in Windows-1252" if char.isprintable() else ""


def bad_utf8(data: bytes) -> str | None:
    """Why ``data`` is not clean UTF-8 text (the first bad byte and where), or None."""
    found = first_bad_byte(data)
    return None if found is None else found[1]


class StoredText(bytes):
    """The bytes of a TEXT value (``text_factory``), told apart from a BLOB's plain bytes."""


def decoded_row(
    values: Iterable[Any], names: list[str], where: str, layer: str, report: QcReport
) -> list[Any]:
    """Values read with ``text_factory = StoredText``: text decoded, bad text reported as None;
    a BLOB stays bytes, for the cleaning to refuse as no number or code."""
    out: list[Any] = []
    for name, value in zip(names, values, strict=True):
        if isinstance(value, StoredText):
            problem = bad_utf8(value)
            if problem is not None:
                report.add(ENCODING, layer, where, f"{name} {value!r}: {problem}")
                value = None
            else:
                value = value.decode("utf-8")
                if value.startswith(BOM):  # an Excel export's byte-order mark, glued on
                    report.add("cleaned", layer, where, f"{name}: byte-order mark dropped")
                    value = value[len(BOM) :]
        out.append(value)
    return out
