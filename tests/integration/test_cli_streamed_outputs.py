"""`nrf assess` streams (reads, assesses and writes a site at a time) and writes the same bytes.

The expected files come from the in-memory path that `nrf assess` used before it streamed
(main at a01759d), which the worker and the API still use: the whole file read and
validated into a list, one `AssessmentRun` in memory, then `render` / `report_files` /
`table_lines`. On 2026-11-26 the streamed outputs of the 245 samples under all three rule
sets were also compared with main's own `nrf assess` output files (cmp): identical.
"""

from __future__ import annotations

import argparse
import io
import json
from datetime import UTC, date, datetime
from pathlib import Path

import attrs
import pyogrio
import pytest
import shapely

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.adapters.outputs.html_report import report_files
from nrf.adapters.outputs.result_files import files_for, write_all
from nrf.adapters.site_boundaries import boundary_stream
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.adapters.site_boundaries.boundary_stream import open_boundary_file
from nrf.adapters.site_map import forked_site_map
from nrf.adapters.terminal.report_table import table_lines
from nrf.domain.column_mapping import renamed
from nrf.domain.errors import InvalidInput
from nrf.domain.output_stamp import OutputStamp
from nrf.domain.rules import RULE_SETS, rule_set_named
from nrf.domain.validation import DEFAULT_LIMITS, validate_features
from nrf.entrypoints import assess_arguments, assess_command
from nrf.entrypoints.cli import EXIT_USAGE, main
from nrf.entrypoints.roots.core import Core, build

BNW = bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
OUTPUTS = ("out.csv", "out.json", "out.geojson", "out.html")


QUOTE_DATE = date(2026, 11, 26)
MADE_AT = datetime(2026, 11, 26, 14, 0, 5, tzinfo=UTC)  # the one stamp time of both paths


def in_memory(source: Path, rules: str, folder: Path) -> dict[str, bytes]:
    """Every file the pre-streaming `nrf assess` wrote for ``source``, and its table."""
    developments = validate_features(read_boundary_file(source))
    container = build(Core, assess_processes=1)
    run = container.assess_developments()(developments, rule_set_named(rules), QUOTE_DATE)
    stamp = OutputStamp(made_at=MADE_AT, input_name=source.name, quote_date=QUOTE_DATE)
    for name in OUTPUTS:
        path = folder / name
        if name.endswith(".html"):
            write_all(report_files(path, run, developments, container.boundary_data(), stamp))
        else:
            write_all(files_for(path, run, developments, stamp=stamp))
    files = {path.name: path.read_bytes() for path in folder.iterdir()}
    files["table.txt"] = ("\n".join(table_lines(run, stamp)) + "\n").encode()
    return files


def streamed(source: Path, rules: str, folder: Path, *extra: str) -> dict[str, bytes]:
    """Every file `nrf assess` writes for ``source`` (streamed), and the table it prints."""
    given = [str(source), "--rules", rules, "--quote-date", QUOTE_DATE.isoformat(), *extra]
    for name in OUTPUTS:
        assert run([*given, "--output", str(folder / name)], io.StringIO()) == 0
    files = {path.name: path.read_bytes() for path in folder.iterdir()}
    table = io.StringIO()
    assert run(given, table) == 0
    files["table.txt"] = table.getvalue().encode()
    return files


def run(argv: list[str], stdout: io.StringIO) -> int:
    args = assess_arguments.add_parser(_subparsers()).parse_args(argv)
    return assess_command.run_assess(
        args, stdout=stdout, stderr=io.StringIO(), wall_clock=lambda: MADE_AT
    )


def _subparsers() -> argparse._SubParsersAction:
    return argparse.ArgumentParser().add_subparsers()


@pytest.mark.parametrize("rules", sorted(RULE_SETS))
def test_the_245_samples_stream_to_the_same_bytes(
    tmp_path: Path, rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    expected = in_memory(BNW, rules, tmp_path / "before")
    # Windows of 50 sites: 5 windows (each forked over 2 processes when CPUs are idle).
    monkeypatch.setattr(forked_site_map, "WINDOW", 50)
    got = streamed(BNW, rules, tmp_path / "after", "--processes", "2")
    assert (
        sorted(got)
        == sorted(expected)
        == sorted(
            [
                "out.csv",
                "out.levy.csv",
                "out.provenance.json",
                "out.json",
                "out.geojson",
                "out.html",
                "table.txt",
            ]
        )
    )
    for name, text in expected.items():
        assert got[name] == text, name
    # the run has both kinds of site, so the merge of the two spools is exercised
    document = json.loads(got["out.json"])
    assert document["sites"] and document["out_of_scope"]


def geojson_of(source: Path, path: Path) -> Path:
    """The sample shapefile as a GeoJSON in EPSG:27700, written without nrf."""
    features = [
        {
            "type": "Feature",
            "properties": f.properties,
            "geometry": shapely.geometry.mapping(f.geometry),
        }
        for f in read_boundary_file(source)
    ]
    document = {
        "type": "FeatureCollection",
        "features": features,
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}},
    }
    path.write_text(json.dumps(document))
    return path


def test_a_geojson_read_as_it_goes_gives_the_features_a_whole_parse_gives(tmp_path: Path) -> None:
    path = geojson_of(BNW, tmp_path / "bnw.geojson")
    whole = read_boundary_file(path)
    with open_boundary_file(path, stream_bytes=0) as source:
        assert source.count == len(whole) == 245
        assert list(source.features()) == whole
        assert [f.properties for f in source.features(geometry=False)] == [
            f.properties for f in whole
        ]


def test_a_shapefile_read_in_chunks_gives_the_features_of_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = read_boundary_file(BNW)
    monkeypatch.setattr(boundary_stream, "CHUNK", 7)  # 35 reads of 7
    with open_boundary_file(BNW) as source:
        assert list(source.features()) == whole


def test_a_streamed_geojson_assesses_to_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = geojson_of(BNW, tmp_path / "bnw.geojson")
    (tmp_path / "whole").mkdir()
    (tmp_path / "streamed").mkdir()
    rules = "iat-2026-04"
    expected = in_memory(path, rules, tmp_path / "whole")
    monkeypatch.setattr(boundary_stream, "STREAM_BYTES", 0)
    assert streamed(path, rules, tmp_path / "streamed") == expected


def test_an_html_report_of_too_many_sites_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(assess_command, "HTML_MAX_SITES", 244)
    assert main(["assess", str(BNW), "--output", str(tmp_path / "r.html")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "the file has 245 sites; an .html report holds at most 244" in err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("document", "limits", "code"),
    [
        ({"type": "Feature", "properties": {}, "geometry": None}, {}, "unreadable_file"),
        ({"type": "FeatureCollection", "features": []}, {}, "empty_file"),
        (
            {"type": "FeatureCollection", "features": [{}, {}]},
            {"max_features": 1},
            "too_many_features",
        ),
        # budget: 4 x max_total_vertices (0) + 50 x max_features (0) + 1,000 = 1,000 marks;
        # each of these 300 features has 7 (two {, three :, its inner comma and the one after
        # it): about 2,100
        (
            {
                "type": "FeatureCollection",
                "features": [{"type": "Feature", "properties": {"a": 1}}] * 300,
            },
            {"max_total_vertices": 0, "max_features": 0},
            "geojson_too_complex",
        ),
    ],
)
def test_a_large_geojson_is_refused_as_a_whole_parse_refuses_it(
    tmp_path: Path, document: object, limits: dict[str, int], code: str
) -> None:
    path = tmp_path / "sites.geojson"
    path.write_text(json.dumps(document))
    with (
        pytest.raises(InvalidInput) as raised,
        open_boundary_file(path, attrs.evolve(DEFAULT_LIMITS, **limits), stream_bytes=0),
    ):
        pass
    assert raised.value.problems[0].code == code


def test_a_geopackage_read_in_chunks_gives_the_features_of_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bnw.gpkg"
    pyogrio.write_dataframe(pyogrio.read_dataframe(BNW), path, layer="sites")
    whole = read_boundary_file(path)
    monkeypatch.setattr(boundary_stream, "CHUNK", 10)  # 24 reads of 10 and one of 5
    with open_boundary_file(path) as source:
        assert source.count == 245
        assert list(source.features()) == whole
        assert [f.properties for f in source.features(geometry=False)] == [
            f.properties for f in whole
        ]


def test_a_file_of_shapes_only_has_its_features_counted_in_the_attribute_pass(
    tmp_path: Path,
) -> None:
    """With no attribute column, the attribute pass still reads every row (their geometry):
    3 shapes, 3 features, though no field says so."""
    path = tmp_path / "shapes.gpkg"
    frame = pyogrio.read_dataframe(BNW, max_features=3)
    pyogrio.write_dataframe(frame[["geometry"]], path)
    with open_boundary_file(path) as source:
        assert len(list(source.features(geometry=False))) == 3
        assert list(source.features()) == read_boundary_file(path)


def test_a_column_mapping_gives_the_streamed_run_the_in_memory_run(tmp_path: Path) -> None:
    """--columns on the streamed path: the same files as renaming the whole file first."""
    path = tmp_path / "renamed.gpkg"
    frame = pyogrio.read_dataframe(BNW)
    frame = frame.rename(columns={"id": "Site_Ref", "Dwellings": "Units"})
    pyogrio.write_dataframe(frame, path)
    mapping = {"id": "Site_Ref", "dwellings": "Units"}
    developments = validate_features(renamed(read_boundary_file(path), mapping))
    container = build(Core, assess_processes=1)
    run_ = container.assess_developments()(developments, rule_set_named("iat-2026-04"), QUOTE_DATE)
    write_all(files_for(tmp_path / "whole.csv", run_, developments))
    assert (
        run(
            [
                str(path),
                "--quote-date",
                QUOTE_DATE.isoformat(),
                "--columns",
                "id=Site_Ref,dwellings=Units",
                "--output",
                str(tmp_path / "streamed.csv"),
            ],
            io.StringIO(),
        )
        == 0
    )
    assert (tmp_path / "streamed.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
