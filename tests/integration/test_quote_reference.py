"""A quote reference given to `nrf assess --reference`, or to the API as a parameter or form
field, is carried into every output: the report, the levy table, the JSON and the GeoJSON."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from nrf.adapters.outputs import levy_csv
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_OK
from support.api_in_process import anonymous_client
from support.api_inputs import SMALL_JSON
from support.api_server import multipart


def levy_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.removeprefix(levy_csv.BOM))))


def test_nrf_assess_carries_its_reference_into_every_output(tmp_path: Path) -> None:
    for suffix in ("csv", "json", "geojson", "html"):
        out = tmp_path / f"quote.{suffix}"
        argv = ["assess", str(SMALL_JSON), "--output", str(out), "--reference", "NRL-000777"]
        assert main(argv) == EXIT_OK
    rows = levy_rows((tmp_path / "quote.levy.csv").read_text(encoding="utf-8"))
    assert {row["Quote_Reference"] for row in rows} == {"NRL-000777"}  # sites and TOTAL
    assert json.loads((tmp_path / "quote.json").read_text())["stamp"]["reference"] == "NRL-000777"
    provenance = json.loads((tmp_path / "quote.provenance.json").read_text())
    assert provenance["stamp"]["reference"] == "NRL-000777"
    geojson = json.loads((tmp_path / "quote.geojson").read_text())
    assert geojson["stamp"]["reference"] == "NRL-000777"
    report = (tmp_path / "quote.html").read_text()
    assert "<title>Nutrient levy report NRL-000777</title>" in report
    assert "none (a local run)" not in report


def test_the_api_takes_a_reference_as_a_parameter_or_a_form_field() -> None:
    client = anonymous_client()
    answer = client.simulate_post(
        "/v1/quotes",
        params={"reference": "NRL-1"},
        body=SMALL_JSON.read_bytes(),
        headers={"Content-Type": "application/geo+json", "Accept": "application/json"},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json["stamp"]["reference"] == "NRL-1"
    form, form_type = multipart(
        {"boundary": ("s.geojson", SMALL_JSON.read_bytes())}, {"reference": "NRL-2"}
    )
    answer = client.simulate_post(
        "/v1/quotes",
        params={"reference": "NRL-ignored"},
        body=form,
        headers={"Content-Type": form_type, "Accept": "text/csv"},
    )
    assert answer.status_code == 200, answer.text
    assert {row["Quote_Reference"] for row in levy_rows(answer.text)} == {"NRL-2"}
    # None given: blank, never a made-up one.
    answer = client.simulate_post(
        "/v1/quotes",
        body=SMALL_JSON.read_bytes(),
        headers={"Content-Type": "application/geo+json", "Accept": "text/html"},
    )
    assert "quote reference <span" in answer.text and "none given" in answer.text


# Issue 31 cleaned a site's text of controls and bidi characters; the reference, printed on
# every output beside it, was still carried as typed: CR/LF, NUL and U+202E in the levy table.
HOSTILE = 'NRL-1\r\n=HYPERLINK("http://x")\x00\u202egpj.exe\u2028end'
CLEANED = 'NRL-1  =HYPERLINK("http://x") gpj.exe end'


def test_a_reference_reaches_every_output_as_plain_text(tmp_path: Path) -> None:
    client = anonymous_client()
    headers = {"Content-Type": "application/geo+json", "Accept": "text/csv"}
    body = SMALL_JSON.read_bytes()
    answer = client.simulate_post(
        "/v1/quotes", params={"reference": HOSTILE}, body=body, headers=headers
    )
    assert answer.status_code == 200, answer.text
    assert answer.text.count("\n") == answer.text.count("\r\n") == 3  # header, site, TOTAL
    assert {row["Quote_Reference"] for row in levy_rows(answer.text)} == {CLEANED}
    out = tmp_path / "quote.json"
    argv = ["assess", str(SMALL_JSON), "--output", str(out), "--reference", HOSTILE]
    assert main(argv) == EXIT_OK
    assert json.loads(out.read_text())["stamp"]["reference"] == CLEANED
