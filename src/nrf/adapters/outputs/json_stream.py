"""The full results JSON written a site at a time, as the same text as ``json.dumps(indent=2)``.

A county's 50,000 sites as one unstructured document and then one string took about a
gigabyte; written item by item, only one site's text is held at a time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from nrf.adapters.outputs.spooled_run import Spool
from nrf.domain.results import AssessmentRun
from nrf.domain.serialization import unstructure


def nested(value: Any, depth: int) -> str:
    """``value`` as indent-2 JSON, for a place ``depth`` levels into the document."""
    return json.dumps(value, indent=2).replace("\n", "\n" + "  " * depth)


def result_text(
    run: AssessmentRun,
    notice: str | None,
    progress: Callable[[int, int], None] | None = None,
    head: Mapping[str, Any] | None = None,
) -> Iterator[str]:
    """``json.dumps({"notice": notice, **head, **unstructure(run)}, indent=2) + "\\n"``, in
    pieces (without the notice when it is None; ``head`` is plain JSON data, the stamp);
    ``progress`` counts the sites and out-of-scope sites."""
    members: list[tuple[str, Any]] = [("notice", notice)] if notice else []
    members += list((head or {}).items())
    members += [(field.name, getattr(run, field.name)) for field in attrs.fields(AssessmentRun)]
    total = len(run.sites) + len(run.out_of_scope)
    done = 0
    for number, (key, value) in enumerate(members):
        yield ("{" if number == 0 else ",") + f"\n  {json.dumps(key)}: "
        if not isinstance(value, tuple | Spool):
            yield nested(unstructure(value), 1)
            continue
        if not value:
            yield "[]"
            continue
        for position, item in enumerate(value):
            yield ("[" if position == 0 else ",") + "\n    " + nested(unstructure(item), 2)
            done += 1
            if progress is not None:
                progress(done, total)
        yield "\n  ]"
    yield "\n}\n"
