"""A site's text as every output shows it: no control characters, no hidden direction changes.

A name from a planner's file reaches a CSV, the HTML report and an email. A NUL ends a C
string in whatever reads the CSV next, a CR or LF starts a new row or a forged header line,
and a bidi override (U+202E) shows ``exe.txt`` as ``txt.exe``: so each control character
(C0, DEL, C1; line breaks and tabs included, and Unicode's line and paragraph separators
U+2028 and U+2029, where Python's ``splitlines`` and so many CSV readers start a row) becomes
a space and each bidi embedding, override, isolate or mark is dropped, once, where the text
is read, and every output gets the same text.
"""

from __future__ import annotations

import re

# U+061C, U+200E-U+200F marks; U+202A-U+202E embeddings and overrides; U+2066-U+2069 isolates.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def plain_text(text: str) -> str:
    """``text`` with controls as spaces and bidi controls dropped, then stripped."""
    return _CONTROL.sub(" ", _BIDI.sub("", text)).strip()
