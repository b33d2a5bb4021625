"""The form's "answer as" choice: the report, or the JSON, levy table or GeoJSON as a download.

A plain form cannot set ``Accept`` or add ``?crs=``, so the person chooses with radio buttons (a
fieldset with a legend, each button labelled, usable by keyboard); each choice is one of the
API's own representations, saved under the uploaded file's name with the suffix `nrf assess`
gives it. The British National Grid GeoJSON is a choice of its own, since that is what most
planning GIS works in.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from attrs import frozen

from nrf.entrypoints.api.problems import ApiProblem
from nrf.entrypoints.api.representations import CSV, GEOJSON, HTML, JSON


@frozen(kw_only=True)
class FormOutput:
    """One choice: the field's value, the representation, the file suffix and its label."""

    value: str
    media_type: str
    suffix: str
    label: str
    bng: bool = False  # GeoJSON in British National Grid, as ``?crs=EPSG:27700``


OUTPUTS = (
    FormOutput(value="html", media_type=HTML, suffix=".html", label="The report (HTML page)"),
    FormOutput(
        value="csv",
        media_type=CSV,
        suffix=".levy.csv",
        label="The levy table (CSV, opens in a spreadsheet)",
    ),
    FormOutput(value="json", media_type=JSON, suffix=".json", label="Every figure (JSON document)"),
    FormOutput(
        value="geojson",
        media_type=GEOJSON,
        suffix=".geojson",
        label="The sites with their figures (GeoJSON, for GIS)",
    ),
    FormOutput(
        value="bng-geojson",
        media_type=GEOJSON,
        suffix=".bng.geojson",
        label="The same GeoJSON in British National Grid (eastings and northings in metres)",
        bng=True,
    ),
)
_BY_VALUE = {output.value: output for output in OUTPUTS}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def chosen_output(value: str | None) -> FormOutput:
    """The output the ``output`` field names (the report when it is absent); else a 400."""
    text = (value or "").strip().lower() or OUTPUTS[0].value
    if text not in _BY_VALUE:
        known = ", ".join(_BY_VALUE)
        raise ApiProblem("bad_request", f"output {text[:40]!r} is not one of {known}")
    return _BY_VALUE[text]


def download_name(input_name: str | None, output: FormOutput) -> str:
    """``site.zip`` with the levy table is ``site.levy.csv``; only plain characters are kept."""
    stem = PurePosixPath(input_name or "quote").stem
    return (_UNSAFE.sub("_", stem)[:100] or "quote") + output.suffix


def choice_fieldset(entered: str | None = None) -> str:
    """The radio buttons, the one ``entered`` names checked (the report when it names none)."""
    text = (entered or "").strip().lower()
    checked = _BY_VALUE.get(text, OUTPUTS[0])
    choices = "".join(
        f'<div class="choice"><input type="radio" id="output-{o.value}" name="output" '
        f'value="{o.value}"{" checked" if o is checked else ""}>'
        f'<label for="output-{o.value}">{o.label}</label></div>'
        for o in OUTPUTS
    )
    return f"<fieldset><legend>Answer with</legend>{choices}</fieldset>"
