"""Word a missing column so the fix is in the finding: the real columns and the manifest line.

A column is missing because the export renamed it far more often than because it was dropped,
so the data manager needs the names the file does have, and the exact manifest line that would
map one of them (TOML: ``[sources.KEY.columns]`` then ``role = "Column"``), with the closest
real name (difflib) filled in when one is close enough to be the likely rename.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# difflib's ratio above which a real column is offered as the likely rename (OID ~ OBJECTID).
CLOSE_ENOUGH = 0.5


def closest(column: str, names: Iterable[str]) -> str | None:
    """The real column most like ``column`` (ignoring case), if any is close."""
    by_folded = {name.casefold(): name for name in names}
    found = difflib.get_close_matches(column.casefold(), by_folded, n=1, cutoff=CLOSE_ENOUGH)
    return by_folded[found[0]] if found else None


def missing_detail(key: str, role: str, column: str, names: Iterable[str]) -> str:
    """ "column `N2K_Site_N` not found; the file has: ...; if one of these holds it, add to the
    manifest: `[sources.nn_catchments.columns] n2k_site_name = "SITE_NAME"`"."""
    real = [str(name) for name in names]
    has = ", ".join(real) if real else "no columns"
    guess = closest(column, real)
    mapped = guess if guess is not None else "COLUMN"
    line = f'`[sources.{key}.columns] {role} = "{mapped}"`'
    close = f" (`{guess}` is the closest)" if guess is not None else ""
    return (
        f"column `{column}` not found; the file has: {has}; if one of these holds it{close}, "
        f"add to the manifest: {line}"
    )
