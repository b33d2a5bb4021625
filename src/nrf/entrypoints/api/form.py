"""GET / : a plain upload form (no JavaScript) whose answer is the report; POST / takes it.

The person may choose the levy table, the JSON or the GeoJSON instead (form_outputs.py); the
report itself links the same quote in those three formats (form_downloads.py). A
browser cannot send an ``x-api-key`` header from a plain form, so the form has a key field
when keys are configured, first in the form: browsers send fields in order, and the server
checks the key before it reads the file (admission.py). A problem is shown as a page too (same
status and codes), because the person who sent the form reads the answer in the browser.
"""

from __future__ import annotations

from html import escape

import falcon

from nrf.domain.errors import NrfError
from nrf.domain.rules import DEFAULT_RULE_SET, RULE_SETS
from nrf.entrypoints.api.auth import ApiKeys
from nrf.entrypoints.api.form_downloads import download_links
from nrf.entrypoints.api.form_outputs import (
    FormOutput,
    choice_fieldset,
    chosen_output,
    download_name,
)
from nrf.entrypoints.api.problems import ApiProblem, document, from_error
from nrf.entrypoints.api.quotes import QuotesResource
from nrf.entrypoints.api.representations import HTML

_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>{title}</title><style>body{{font-family:Arial,sans-serif;margin:24px;max-width:720px}}
label{{display:block;margin:12px 0 4px;font-weight:bold}}input,select{{font-size:16px}}
button{{display:block;margin-top:16px;font-size:18px;padding:6px 16px}}
fieldset{{margin-top:16px;border:1px solid #505a5f}}legend{{font-weight:bold}}
.choice{{margin:8px 0}}.choice input{{width:24px;height:24px;margin:0;vertical-align:middle}}
.choice label{{display:inline;font-weight:normal;margin-left:8px}}
.hint{{margin:0 0 4px;color:#505a5f}}
</style></head>
<body>{body}</body></html>
"""


def form_page(keys: ApiKeys) -> str:
    rules = "".join(
        f'<option value="{name}"{" selected" if name == DEFAULT_RULE_SET else ""}>'
        f"{escape(name)}: {escape(rule.description)}</option>"
        for name, rule in sorted(RULE_SETS.items())
    )
    key = (
        ""
        if keys.anonymous
        else (
            '<label for="api_key">API key</label>'
            '<input id="api_key" name="api_key" type="password">'
        )
    )
    body = f"""<h1>Nutrient levy quote</h1>
<p>Upload a red-line boundary (GeoJSON, zipped shapefile, GeoPackage, or KML or KMZ as drawn in
Google Earth) to get the report.
A field left empty is taken from the file's own column of that name; without one, a site's
reference is its position in the file, its category housing, its name and source blank.</p>
<form method="post" action="/" enctype="multipart/form-data">
{key}<label for="boundary">Boundary file</label>
<input id="boundary" name="boundary" type="file" required>
<label for="name">Development name</label><input id="name" name="name">
<label for="id">Reference</label>
<p id="id-hint" class="hint">For a file of one site; each site of a file of several
keeps its own.</p>
<input id="id" name="id" aria-describedby="id-hint">
<label for="dwellings">Dwellings</label><input id="dwellings" name="dwellings" inputmode="numeric">
<label for="dwelling_category">Dwelling category</label>
<input id="dwelling_category" name="dwelling_category" placeholder="housing">
<label for="source">Source</label><input id="source" name="source">
<label for="layer">Layer (a GeoPackage's layer, KML folder or file in the zip)</label>
<input id="layer" name="layer">
<label for="columns">Your column names (e.g. id=Site_Ref,dwellings=No_Dwellin)</label>
<input id="columns" name="columns">
<label for="rules">Rule set</label><select id="rules" name="rules">{rules}</select>
{choice_fieldset()}
<button type="submit">Get the quote</button></form>"""
    return _PAGE.format(title="Nutrient levy quote", body=body)


def problem_page(problem: ApiProblem) -> str:
    doc = document(problem, None)
    items = "".join(
        f"<li><code>{escape(p['code'])}</code>: {escape(p['message'])}</li>"
        for p in doc.get("problems", [])
    )
    # The code is shown beside the detail: not again at its start ("zip_ambiguous: zip_ambiguous:").
    detail = doc["detail"].removeprefix(f"{problem.code}: ")
    body = (
        f"<h1>The boundary cannot be assessed</h1><p><code>{escape(problem.code)}</code>: "
        f'{escape(detail)}</p><ul>{items}</ul><p><a href="/">Back to the form</a></p>'
    )
    return _PAGE.format(title="Cannot assess", body=body)


class FormResource:
    public = True  # the form checks the key itself: from a header or its own field

    def __init__(self, quotes: QuotesResource, keys: ApiKeys) -> None:
        self._quotes, self._keys = quotes, keys

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = "text/html; charset=utf-8"
        resp.text = form_page(self._keys)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        chosen: list[FormOutput] = []

        def admit(fields: dict[str, str]) -> None:
            """Before the boundary is read: the key, then the answer's type, from the fields."""
            self._keys.check(req, key=fields.get("api_key") or None)
            chosen.append(chosen_output(fields.get("output")))

        try:
            quote = self._quotes.quote(req, authorise=admit)
        except (ApiProblem, NrfError) as error:
            problem = error if isinstance(error, ApiProblem) else from_error(error)
            if req.client_prefers(["application/problem+json", HTML]) != HTML:
                raise problem from None
            resp.status = falcon.code_to_http_status(problem.status)
            resp.content_type = "text/html; charset=utf-8"
            resp.text = problem_page(problem)
            return
        output, stamp = chosen[0], self._quotes.stamp(req)
        input_name = getattr(req.context, "input_name", None)
        if output.media_type == HTML:
            links = download_links(input_name, lambda kind: self._quotes.render(quote, kind, stamp))
            resp.content_type, resp.data = self._quotes.render(quote, HTML, stamp, downloads=links)
            return
        resp.content_type, resp.data = self._quotes.render(quote, output.media_type, stamp)
        name = download_name(input_name, output)
        resp.set_header("Content-Disposition", f'attachment; filename="{name}"')
