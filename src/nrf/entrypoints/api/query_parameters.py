"""The boundary routes' query parameters and form fields spelt as documented and given once.

Falcon reads a parameter by its exact name, so ``?quotedate=1999-01-01`` or ``?quote_date=``
was quietly ignored and the levy priced as on today, not on the day asked for; and a
parameter given twice was read as its values joined by commas (``columns``) or as one of
them (``rules``, ``layer``, ``reference``). A near miss (another letter case, ``_`` or ``-``)
is refused with the right name; a parameter unlike any the API reads (a cache-buster) is left
alone, as before. The form's text fields the same way: ``dwellings`` sent twice was priced as
its last value, ``Dwellings`` or ``quotedate`` ignored.
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


# Every text field a boundary route's form reads (inputs.FIELDS, quotes.request_from, the
# upload form's, Defra's /check-boundary).
FORM_FIELDS = (
    "id",
    "name",
    "dwelling_category",
    "source",
    "dwellings",
    "reference",
    "quoteDate",
    "layer",
    "columns",
    "rules",
    "output",
    "api_key",
    "boundary_filename",
)


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


_FIELD_BY_FOLDED = {_folded(name): name for name in FORM_FIELDS}


def check_form_field(name: str, fields: dict[str, str]) -> None:
    """Refuse a text field already in ``fields``, or spelt unlike the field it must mean."""
    if name in fields:
        raise ApiProblem("bad_request", f"the form gives the field {name[:40]!r} twice")
    meant = _FIELD_BY_FOLDED.get(_folded(name))
    if meant is not None and meant != name:
        message = f"the form's field {name[:40]!r} is not read: the field is spelt {meant!r}"
        raise ApiProblem("bad_request", message)
