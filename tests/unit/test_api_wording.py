"""API and form problems name the API's parameters, never `nrf assess`'s flags."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import geopandas
import pytest
from shapely.geometry import box

from nrf.domain.errors import InvalidInput, Problem
from nrf.entrypoints.api.form import problem_page
from nrf.entrypoints.api.problems import document, from_error
from nrf.entrypoints.api.wording import API_NAMES, for_api

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SHARED = ("adapters/site_boundaries", "domain", "service_layer")  # what the CLI and API share
SRC = Path(__file__).resolve().parents[2] / "src" / "nrf"


@pytest.mark.parametrize(
    ("message", "worded"),
    [
        (
            "the GeoPackage has 2 polygon layers among 'a', 'b'; choose one with --layer NAME",
            "the GeoPackage has 2 polygon layers among 'a', 'b'; choose one with the `layer` "
            "parameter or form field",
        ),
        (
            "--layer 'x' applies to a GeoPackage",
            "the `layer` parameter or form field 'x' applies to a GeoPackage",
        ),
        (
            "map them with `--columns` id=Ref",
            "map them with the `columns` parameter or form field id=Ref",
        ),
        (
            "leave out --crs for a file that states its CRS",
            # (the API has no --crs, so it never says this: the substitution alone is checked)
            "leave out a CRS stated in the file (a .prj beside the .shp, or a GeoJSON crs "
            "member) such as for a file that states its CRS",
        ),
        ("raise it with --max-sites", "raise it with a file with fewer sites"),
        ("use --quote-date", "use the `quoteDate` parameter"),
        # Only a metavar goes with its flag, never the word after it.
        (
            "give --crs EPSG:27700",
            "give a CRS stated in the file (a .prj beside the .shp, or a GeoJSON crs member) "
            "such as EPSG:27700",
        ),
        ("an unknown --some-flag stays readable", "an unknown some-flag stays readable"),
        ("a range 10 - 20 and a--b are not flags", "a range 10 - 20 and a--b are not flags"),
    ],
)
def test_each_flag_is_worded_as_the_api_names_it(message: str, worded: str) -> None:
    assert for_api(message) == worded


def strings_in(path: Path) -> list[str]:
    """The string literals of a module (f-strings' parts too), without docstrings or comments."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_every_flag_the_shared_readers_write_has_api_words() -> None:
    """A new hint naming a flag in a reader the API shares must say what the API calls it."""
    found = {
        flag
        for folder in SHARED
        for path in (SRC / folder).rglob("*.py")
        for text in strings_in(path)
        for flag in FLAG.findall(text)
    }
    assert found <= set(API_NAMES), found - set(API_NAMES)
    assert strings_in(SRC / "adapters/site_boundaries/boundary_files.py")  # the scan reads


def test_problem_documents_and_pages_carry_the_api_words() -> None:
    error = InvalidInput(
        [Problem(code="ambiguous_layer", message="2 layers; choose one with --layer NAME")]
    )
    problem = from_error(error)
    doc = document(problem, "rid-1")
    page = problem_page(problem)
    for text in (doc["detail"], doc["problems"][0]["message"], page):
        assert not FLAG.search(text), text
        assert "`layer` parameter or form field" in text


def two_layer_geopackage(path: Path) -> bytes:
    for layer, x in (("north", 0.0), ("south", 500.0)):
        frame = geopandas.GeoDataFrame(
            {"id": [layer], "dwellings": [3]}, geometry=[box(x, 0, x + 100, 100)], crs=27700
        )
        frame.to_file(path, layer=layer, driver="GPKG")
    return path.read_bytes()


def test_the_apis_answers_to_an_ambiguous_upload_name_no_flag(tmp_path: Path) -> None:
    from test_api_app import KEY, client

    from support.api_server import multipart

    gpkg = two_layer_geopackage(tmp_path / "two.gpkg")
    api = client()
    answers = []
    for path, accept in (
        ("/v1/quotes", "application/json"),
        ("/", "text/html"),
        ("/", "application/problem+json"),
    ):
        body, content_type = multipart({"boundary": ("two.gpkg", gpkg)}, {"api_key": KEY})
        headers = {"Content-Type": content_type, "Accept": accept}
        if path != "/":
            headers["x-api-key"] = KEY
        answers.append(api.simulate_post(path, body=body, headers=headers))
    for answer in answers:
        assert answer.status_code == 422, answer.text[:300]
        assert "ambiguous_layer" in answer.text
        assert not FLAG.search(answer.text), answer.text


def test_a_flag_named_twice_in_one_message_is_worded_in_full_once() -> None:
    from nrf.adapters.site_boundaries.boundary_crs import accepted_crs

    with pytest.raises(InvalidInput) as caught:
        accepted_crs(None)
    worded = for_api(caught.value.problems[0].message)
    assert worded.count("a .prj beside the .shp") == 1, worded
    assert "EPSG:27700" in worded and "EPSG:4326" in worded and "--crs" not in worded
