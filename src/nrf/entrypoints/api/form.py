"""GET / : a plain upload form (no JavaScript) whose answer is the report; POST / takes it.

The person may choose the levy table, the JSON or the GeoJSON (WGS 84 or British National Grid)
instead (form_outputs.py); the report itself links the same quote in those formats
(form_downloads.py). A
browser cannot send an ``x-api-key`` header from a plain form, so the form has a key field
when keys are configured, first in the form: browsers send fields in order, and the server
checks the key before it reads the file (admission.py). A problem is shown as a page too (same
status and codes), because the person who sent the form reads the answer in the browser.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

import falcon

from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE
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
.synthetic{{background:#d4351c;color:#fff;padding:12px;border:4px solid #0b0c0c}}
</style></head>
<body>{body}</body></html>
"""


# The heading of a problem page, by status: only an input problem is about the boundary.
HEADINGS = {
    400: "The form cannot be read",
    401: "The API key was not accepted",
    406: "That answer type cannot be given",
    408: "The file took too long to arrive",
    413: "The file is too large",
    415: "The file type is not supported",
    422: "The boundary cannot be assessed",
    503: "The service cannot quote just now",
}
# Text fields the form sends back filled in after a problem (never the key, never the file).
KEPT = (
    "name",
    "reference",
    "id",
    "dwellings",
    "dwelling_category",
    "source",
    "quoteDate",
    "layer",
    "columns",
)


def _field(name: str, label: str, entered: Mapping[str, str], extra: str = "") -> str:
    value = entered.get(name, "")
    shown = f' value="{escape(value)}"' if value else ""
    return (
        f'<label for="{name}">{escape(label)}</label>'
        f'<input id="{name}" name="{name}"{shown}{extra}>'
    )


def form_page(keys: ApiKeys, synthetic: bool = False, entered: Mapping[str, str] = {}) -> str:
    return _PAGE.format(
        title="Nutrient levy quote",
        body="<main><h1>Nutrient levy quote</h1>"
        + _notice(synthetic)
        + _form(keys, entered)
        + "</main>",
    )


def _notice(synthetic: bool) -> str:
    if not synthetic:
        return ""
    return f'<p class="synthetic" role="note"><strong>{escape(SYNTHETIC_NOTICE)}</strong></p>'


def _form(keys: ApiKeys, entered: Mapping[str, str]) -> str:
    chosen_rules = entered.get("rules") or DEFAULT_RULE_SET
    rules = "".join(
        f'<option value="{name}"{" selected" if name == chosen_rules else ""}>'
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
    return f"""<p>Upload a red-line boundary (GeoJSON, zipped shapefile, GeoPackage, or KML or KMZ
as drawn in Google Earth) to get the report.
A field left empty is taken from the file's own column of that name; without one, a site's
reference is its position in the file, its category housing, its name and source blank.</p>
<form id="form" method="post" action="/" enctype="multipart/form-data">
{key}<label for="boundary">Boundary file</label>
<input id="boundary" name="boundary" type="file" required>
{_field("reference", "Quote reference (printed on every output)", entered)}
{_field("name", "Development name", entered)}
<label for="id">Site reference</label>
<p id="id-hint" class="hint">For a file of one site; each site of a file of several
keeps its own.</p>
<input id="id" name="id" aria-describedby="id-hint"{_value(entered, "id")}>
{_field("dwellings", "Dwellings", entered, ' inputmode="numeric"')}
{_field("dwelling_category", "Dwelling category", entered, ' placeholder="housing"')}
{_field("source", "Source", entered)}
<label for="quoteDate">Quote date (the day the levy is priced on; empty for today)</label>
<input id="quoteDate" name="quoteDate" type="date"{_value(entered, "quoteDate")}>
{_field("layer", "Layer (a GeoPackage's layer, KML folder or file in the zip)", entered)}
{_field("columns", "Your column names (e.g. id=Site_Ref,dwellings=No_Dwellin)", entered)}
<label for="rules">Rule set</label><select id="rules" name="rules">{rules}</select>
{choice_fieldset(entered.get("output"))}
<button type="submit">Get the quote</button></form>"""


def _value(entered: Mapping[str, str], name: str) -> str:
    value = entered.get(name, "")
    return f' value="{escape(value)}"' if value else ""


def _problem_item(item: Mapping[str, object]) -> str:
    where = []
    if item.get("feature") is not None:
        where.append(f"feature {item['feature']}")
    if item.get("site_id"):
        where.append(f"site {item['site_id']}")
    said = f" ({escape(', '.join(where))})" if where else ""
    message = str(item["message"])
    # The message may already say where (feature 2: ...): each place is said once.
    message = message.removeprefix(f"feature {item.get('feature')}: ")
    return f"<li><code>{escape(str(item['code']))}</code>{said}: {escape(message)}</li>"


def problem_page(
    problem: ApiProblem,
    keys: ApiKeys | None = None,
    entered: Mapping[str, str] = {},
    synthetic: bool = False,
) -> str:
    doc = document(problem, None)
    listed = doc.get("problems", [])
    heading = HEADINGS.get(problem.status, "The quote cannot be given")
    if listed:
        # Each problem once, with its site: the detail only repeats them.
        count = f"{len(listed)} problem" + ("" if len(listed) == 1 else "s")
        lead = f"<p>{escape(count)} (code <code>{escape(problem.code)}</code>):</p>"
    else:
        # The code is shown beside the detail: not again at its start.
        detail = doc["detail"].removeprefix(f"{problem.code}: ")
        lead = f"<p><code>{escape(problem.code)}</code>: {escape(detail)}</p>"
    items = "".join(_problem_item(item) for item in listed)
    again = ""
    if keys is not None:
        again = (
            '<h2 id="again">Back to the form</h2><p>What you entered is kept below; choose the '
            "file again (a browser never keeps a file field).</p>" + _form(keys, entered)
        )
    back = (
        '<p><a href="#again">Back to the form</a></p>'
        if again
        else ('<p><a href="/">Back to the form</a></p>')
    )
    body = (
        f"<main><h1>{escape(heading)}</h1>{_notice(synthetic)}{lead}"
        f"<ul>{items}</ul>{back}{again}</main>"
    )
    return _PAGE.format(title=heading, body=body)


class FormResource:
    public = True  # the form checks the key itself: from a header or its own field

    def __init__(self, quotes: QuotesResource, keys: ApiKeys) -> None:
        self._quotes, self._keys = quotes, keys

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = "text/html; charset=utf-8"
        resp.text = form_page(self._keys, self._quotes.synthetic)

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        chosen: list[FormOutput] = []
        entered: dict[str, str] = {}

        def admit(fields: dict[str, str]) -> None:
            """Before the boundary is read: the key, then the answer's type, from the fields."""
            entered.update({k: v for k, v in fields.items() if k in (*KEPT, "rules", "output")})
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
            resp.text = problem_page(problem, self._keys, entered, self._quotes.synthetic)
            return
        output, stamp = chosen[0], self._quotes.stamp(req)
        input_name = getattr(req.context, "input_name", None)
        if output.media_type == HTML:
            links = download_links(
                input_name,
                lambda linked: self._quotes.render(quote, linked.media_type, stamp, bng=linked.bng),
            )
            resp.content_type, resp.data = self._quotes.render(quote, HTML, stamp, downloads=links)
            return
        resp.content_type, resp.data = self._quotes.render(
            quote, output.media_type, stamp, bng=output.bng
        )
        name = download_name(input_name, output)
        resp.set_header("Content-Disposition", f'attachment; filename="{name}"')
