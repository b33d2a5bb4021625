"""The quote API's JSON answer: json.dumps(indent=2)'s exact text, made by a faster walk."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from nrf.adapters.outputs.indented_json import dumps_indented
from nrf.adapters.outputs.result_files import result_document
from nrf.domain.model import Boundary, SiteReferenceData
from nrf.domain.output_stamp import OutputStamp
from nrf.entrypoints.api.representations import JSON, render_quote
from nrf.service_layer.quotes import Quote
from support.runs import DEVELOPMENTS, RUN


def test_a_small_document_by_hand() -> None:
    # Two spaces a level, ", " never (a line ends at each comma), ": " after a key, empty
    # containers on one line, strings ASCII-escaped, floats as repr.
    doc: dict[str, Any] = {"a": [1, 2.5], "b": {}, "c": [], "d": "é", "e": None, "f": True}
    expected = (
        "{\n"
        '  "a": [\n'
        "    1,\n"
        "    2.5\n"
        "  ],\n"
        '  "b": {},\n'
        '  "c": [],\n'
        '  "d": "\\u00e9",\n'
        '  "e": null,\n'
        '  "f": true\n'
        "}"
    )
    assert dumps_indented(doc) == expected


ODD: list[Any] = [
    {},
    [],
    "",
    0,
    -0.0,
    1e16,
    1e-7,
    0.1 + 0.2,
    float("nan"),
    float("inf"),
    -float("inf"),
    2**70,
    False,
    None,
    'quote " backslash \\ newline \n tab \t nul \x00 line separator \u2028 emoji \U0001f600',
    (1, [2, {"x": [], "y": {}}]),
    {1: "int key", 2.5: "float key", False: "bool key", None: "null key", "": "empty key"},
    [[[[]]], {"a": {"b": {"c": [None]}}}],
    {True: "true key", 3: "int key"},
]


@pytest.mark.parametrize("value", ODD, ids=range(len(ODD)))
def test_the_same_text_as_the_standard_library(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


@pytest.mark.parametrize("value", [{"a": {1, 2}}, [b"bytes"], {(1, 2): "tuple key"}])
def test_what_json_refuses_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        json.dumps(value, indent=2)
    with pytest.raises(TypeError):
        dumps_indented(value)


def _no_geometry(boundary: Boundary) -> SiteReferenceData:
    raise AssertionError("a JSON answer reads no reference geometry")


def test_the_api_answer_is_the_cli_files_text() -> None:
    # `nrf assess --output x.json` writes json.dumps(result_document(...), indent=2) + "\n".
    stamp = OutputStamp(
        made_at=datetime(2026, 11, 27, 22, 0, tzinfo=UTC), input_name="POST /v1/quotes body"
    )
    quote = Quote(run=RUN, developments=tuple(DEVELOPMENTS))
    kind, body = render_quote(quote, JSON, _no_geometry, stamp)
    assert kind == JSON
    assert body == (json.dumps(result_document(RUN, stamp), indent=2) + "\n").encode()
