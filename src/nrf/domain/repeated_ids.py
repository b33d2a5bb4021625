"""Site ids used by more than one site: each site is still quoted, but the user is told.

A planner's file may give two sites one id (a copied row, a site in two parts): both are
assessed, as before, but every output that is read by id (a spreadsheet lookup, the backend's
records) would mix them, so the run says which ids repeat rather than accepting them silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from nrf.domain.results import RunWarning

SHOWN = 10  # ids named in the sentence; the rest are counted


def repeated_ids(ids: Iterable[str]) -> dict[str, int]:
    """Each id given to more than one site, with how many, in the order first seen."""
    counts = Counter(ids)
    return {site_id: n for site_id, n in counts.items() if n > 1}


def repeated_ids_sentence(repeated: dict[str, int]) -> str:
    """One line for the user; empty when no id repeats."""
    if not repeated:
        return ""
    named = ", ".join(
        f"{site_id[:60]!r} ({n} sites)" for site_id, n in list(repeated.items())[:SHOWN]
    )
    more = f" and {len(repeated) - SHOWN:,} more" if len(repeated) > SHOWN else ""
    return (
        f"{len(repeated):,} site id(s) are used by more than one site: {named}{more}; "
        "each site is quoted, but results read by id will mix them"
    )


def repeated_ids_warnings(ids: Iterable[str]) -> tuple[RunWarning, ...]:
    """The run's ``repeated_site_ids`` warning, naming every repeated id; () when none repeat."""
    repeated = repeated_ids(ids)
    if not repeated:
        return ()
    sentence = repeated_ids_sentence(repeated)
    return (RunWarning(code="repeated_site_ids", message=sentence, site_ids=tuple(repeated)),)
