"""A trace id goes back to Defra as an HTTP header, so it is kept to visible ASCII.

Any other character (CR, LF, a space, a control character, anything beyond ASCII) is
percent-encoded as its UTF-8 bytes rather than refused: the id only correlates logs, and a
quote must not fail over it. ``%`` itself is left alone, so encoding twice changes nothing.
"""

from __future__ import annotations

_VISIBLE = frozenset(range(0x21, 0x7F))


def header_safe(trace_id: str) -> str:
    """``trace_id`` with every character outside visible ASCII percent-encoded (idempotent)."""
    if all(ord(ch) in _VISIBLE for ch in trace_id):
        return trace_id
    out = []
    for ch in trace_id:
        if ord(ch) in _VISIBLE:
            out.append(ch)
        else:
            # A lone surrogate is valid JSON text but not UTF-8: its code point is kept visible.
            data = ch.encode("utf-8", "surrogatepass")
            out.extend(f"%{byte:02X}" for byte in data)
    return "".join(out)
