"""A file's own ``dwellings`` column passed over by ``dwellings=Units`` is told (issue 30): in
`nrf assess`'s terminal and files, and in the API's answer for the parameter and the form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_OK
from support.api_in_process import anonymous_client
from support.api_server import multipart

NORFOLK = (620_000, 310_000)  # inside the bundled synthetic bundle
CODE = "column_set_aside"
SENTENCE = (
    "the file's column 'dwellings' is not read: the column mapping reads dwellings from 'Units'"
)


def _geojson(*properties: dict[str, object]) -> str:
    x, y = NORFOLK
    features = [
        {
            "type": "Feature",
            "properties": p,
            "geometry": {
                "type": "Polygon",
                "coordinates": [
                    [
                        [x + 200 * i, y],
                        [x + 200 * i + 100, y],
                        [x + 200 * i + 100, y + 100],
                        [x + 200 * i, y + 100],
                        [x + 200 * i, y],
                    ]
                ],
            },
        }
        for i, p in enumerate(properties)
    ]
    crs = {"type": "name", "properties": {"name": "EPSG:27700"}}
    return json.dumps({"type": "FeatureCollection", "crs": crs, "features": features})


BOTH = _geojson({"id": "A", "Units": 12, "dwellings": 99}, {"id": "B", "Units": 3})
UNITS_ONLY = _geojson({"id": "A", "Units": 12})


def _warnings(doc: dict) -> list[tuple[str, str]]:
    return [(w["code"], w["message"]) for w in doc["warnings"]]


def test_nrf_assess_warns_on_the_terminal_and_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "council.geojson"
    path.write_text(BOTH)
    out = tmp_path / "out.json"
    args = ["assess", str(path), "--columns", "dwellings=Units", "--output", str(out)]
    assert main(args) == EXIT_OK
    assert f"warning: {SENTENCE}" in capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert _warnings(doc) == [(CODE, SENTENCE)]
    # Units was read, as asked: 12 and 3 dwellings, not 99.
    assert [s["site"]["dwellings"] for s in doc["sites"]] == [12, 3]


def test_nrf_assess_says_so_in_the_report(tmp_path: Path) -> None:
    path = tmp_path / "council.geojson"
    path.write_text(BOTH)
    out = tmp_path / "out.html"
    assert main(["assess", str(path), "--columns", "dwellings=Units", "--output", str(out)]) == 0
    assert f"<code>{CODE}</code>" in out.read_text()


def test_nrf_assess_says_nothing_when_the_file_has_no_such_column(tmp_path: Path) -> None:
    path = tmp_path / "council.geojson"
    path.write_text(UNITS_ONLY)
    out = tmp_path / "out.json"
    assert main(["assess", str(path), "--columns", "dwellings=Units", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["warnings"] == []


def test_the_api_parameter_warns_in_the_answer() -> None:
    def quote(body: str) -> dict:
        answer = anonymous_client().simulate_post(
            "/v1/quotes",
            body=body,
            params={"columns": "dwellings=Units"},
            headers={"Content-Type": "application/geo+json"},
        )
        assert answer.status_code == 200, answer.text[:300]
        return dict(answer.json)

    assert _warnings(quote(BOTH)) == [(CODE, SENTENCE)]
    assert quote(UNITS_ONLY)["warnings"] == []


def test_the_api_form_field_warns_in_the_answer_and_the_forms_report() -> None:
    body, content_type = multipart(
        {"boundary": ("council.geojson", BOTH.encode())}, {"columns": "dwellings=Units"}
    )
    answer = anonymous_client().simulate_post(
        "/v1/quotes", body=body, headers={"Content-Type": content_type}
    )
    assert answer.status_code == 200, answer.text[:300]
    assert _warnings(answer.json) == [(CODE, SENTENCE)]
    page = anonymous_client().simulate_post(
        "/", body=body, headers={"Content-Type": content_type, "Accept": "text/html"}
    )
    assert page.status_code == 200, page.text[:300]
    assert f"<code>{CODE}</code>" in page.text
