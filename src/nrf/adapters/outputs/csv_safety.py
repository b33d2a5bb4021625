"""Text cells neutralised against formula injection, as OWASP advises for CSV files.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (also after leading
spaces, or a tab or carriage return) as a formula, so a site named ``=HYPERLINK(...)`` in an
uploaded file would run on the planner's machine. Such a cell gets a leading apostrophe, which
Excel and LibreOffice show as text. Only text from people or reference data passes here; the
numbers we print ourselves (``-0.25``) are never touched, so ordinary text and every number are
written byte for byte as before.
"""

from __future__ import annotations

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """``text``, or ``'`` + ``text`` when a spreadsheet would read it as a formula."""
    if text.startswith(TRIGGERS) or text.lstrip(" \t\r\n").startswith(TRIGGERS[:4]):
        return "'" + text
    return text
