"""The boundary routes' query parameters spelt as documented and given once, or a 400.

Falcon reads a parameter by its exact name, so ``?quotedate=1999-01-01`` or ``?quote_date=``
was quietly ignored and the levy priced as on today, not on the day asked for; and a
parameter given twice was read as its values joined by commas (``columns``) or as one of
them (``rules``, ``layer``, ``reference``). A near miss (another letter case, ``_`` or ``-``)
is refused with the right name; a parameter unlike any the API reads (a cache-buster) is left
alone, as before.
"""

from __future__ import annotations

import falcon

from nrf.entrypoints.api.problems import ApiProblem

# Every query parameter a boundary route reads (openapi.py documents each), and the code its
# misuse is refused with.
READ = {
    "rules": "bad_request",
    "quoteDate": "bad_quote_date",
    "layer": "bad_request",
    "reference": "bad_request",
    "columns": "bad_request",
    "crs": "bad_crs",
}


def _folded(name: str) -> str:
    return name.casefold().replace("_", "").replace("-", "")


_BY_FOLDED = {_folded(name): name for name in READ}


def check_query(req: falcon.Request) -> None:
    """Refuse a parameter given more than once, or spelt unlike the one it must mean."""
    for name, value in req.params.items():
        if name in READ:
            if isinstance(value, list):
                raise ApiProblem(READ[name], f"give {name} once")
            continue
        meant = _BY_FOLDED.get(_folded(name))
        if meant is not None:
            message = f"the parameter {name[:40]!r} is not read: the API's is spelt {meant!r}"
            raise ApiProblem(READ[meant], message)
