"""One build names every problem of a delivery: what could not be read and what the gate found.

A data manager with an Excel-made charges CSV once needed three runs (the encoding, then the
dates, then a pass). Each case here breaks a small Defra-layout delivery (``support.delivery``)
in more than one way and asserts that a single `nrf bundle build` reports all of it, exits 6
when anything could not be read, and writes no bundle.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shapely.geometry import Polygon

from nrf.entrypoints.cli import main
from support.breakages import rewrite_shapefile
from support.delivery import FixtureData, build_command, write_delivery

UNREADABLE = 6
OLD = b"an older bundle that a refused build must leave alone"
Change = Callable[[Path, dict[str, Path]], None]


def _build(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    before: Callable[[FixtureData], None] | None = None,
    after: Change | None = None,
) -> tuple[int, list[dict[str, Any]], str]:
    data = FixtureData()
    if before is not None:
        before(data)
    root = tmp_path / "iat_input"
    paths = write_delivery(root, data)
    if after is not None:
        after(root, paths)
    out = tmp_path / "out" / "out.gpkg"
    out.parent.mkdir()
    out.write_bytes(OLD)
    capsys.readouterr()
    status = main(build_command(root, paths, out, "1"))
    err = capsys.readouterr().err
    found = json.loads(out.with_suffix(".qc.json").read_text())["findings"]
    return status, found, err


def _untouched(tmp_path: Path) -> None:
    out = tmp_path / "out" / "out.gpkg"
    assert out.read_bytes() == OLD
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.gpkg", "out.qc.json", "out.qc.md"]


def _rename_oid(root: Path, _: dict[str, Path]) -> None:
    rewrite_shapefile(root, "nn", lambda f: f.rename(columns={"OID": "OBJECTID"}))


def test_a_missing_column_is_named_beside_the_files_columns_and_the_manifest_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, found, err = _build(tmp_path, capsys, after=_rename_oid)
    assert status == UNREADABLE, err
    [missing] = [f for f in found if f["code"] == "source_missing"]
    # The fixture's catchments carry N2K_Site_N and (renamed here) OBJECTID; OID is the
    # edp_id role's Defra name, and OBJECTID the real column nearest to it.
    assert missing["detail"] == (
        "column `OID` not found; the file has: N2K_Site_N, OBJECTID; if one of these holds it "
        "(`OBJECTID` is the closest), add to the manifest: "
        '`[sources.nn_catchments.columns] edp_id = "OBJECTID"`'
    )
    assert missing["detail"] in err
    _untouched(tmp_path)


def test_a_missing_levy_csv_column_names_the_header_and_the_manifest_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def rename(_: Path, paths: dict[str, Path]) -> None:
        text = paths["charges"].read_text()
        paths["charges"].write_text(text.replace("base_charge_per_unit", "Charge per unit", 1))

    status, found, err = _build(tmp_path, capsys, after=rename)
    assert status == UNREADABLE, err
    [missing] = [f for f in found if f["code"] == "source_missing"]
    assert missing["detail"].startswith(
        "column `base_charge_per_unit` not found; the file has: edp_id, edp_name, "
        "edp_start_date, charge_valid_from, charge_valid_to, Charge per unit; "
    )
    assert missing["detail"].endswith(
        '`[sources.levy_charges.columns] base_charge_per_unit = "Charge per unit"`'
    )


def _bowtie(d: FixtureData) -> None:
    """Alpha SAC's ring drawn corner to corner: it crosses itself (a gate problem)."""
    x0, y0 = 600_000.0, 300_000.0
    ring = [(x0, y0), (x0 + 1500, y0 + 2000), (x0 + 1500, y0), (x0, y0 + 2000)]
    d.nn[0] = (Polygon(ring), "Alpha SAC", 1)


def _charges_in_utf16(_: Path, paths: dict[str, Path]) -> None:
    """Saved as "Unicode Text": no single-byte reading makes it text (a read problem)."""
    paths["charges"].write_bytes(paths["charges"].read_text().encode("utf-16"))


def test_a_read_problem_and_a_gate_problem_are_both_reported_by_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, found, err = _build(tmp_path, capsys, before=_bowtie, after=_charges_in_utf16)
    assert status == UNREADABLE, err
    codes = {(f["code"], f["layer"]) for f in found}
    assert ("source_encoding", "levy_charges") in codes
    assert ("geometry_invalid", "nn_catchments") in codes  # the gate judged what was read
    assert "source_encoding levy_charges" in err and "geometry_invalid nn_catchments" in err
    # The charges were not read: their rules are listed as not run, not silently skipped, and
    # no rule cries "empty" over the table the build could not fill.
    [not_run] = [f for f in found if f["code"] == "not_run"]
    assert (not_run["layer"], not_run["key"]) == ("levy_charges", "charge rules")
    assert not_run["detail"] == "not run: needs levy_charges (not read)"
    assert ("empty", "levy_charges") not in codes
    assert "not read: levy_charges" in err
    md = (tmp_path / "out" / "out.qc.md").read_text()
    assert "not read: levy_charges" in md and "geometry_invalid" in md
    _untouched(tmp_path)


def test_a_missing_column_and_a_gate_problem_elsewhere_are_reported_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def implausible(d: FixtureData) -> None:
        d.permits[0] = ("\t11307", "Alpha WwTW", "Upper Yare", "27", "999", "1", "1")

    status, found, err = _build(tmp_path, capsys, before=implausible, after=_rename_oid)
    assert status == UNREADABLE, err
    codes = {(f["code"], f["layer"]) for f in found}
    assert ("source_missing", "nn_catchments") in codes
    assert ("value_invalid", "wwtw_permits") in codes  # 999 mg/l, judged in the same run
    # The rates' catchment references and the coverage need the catchments: not run.
    not_run = {f["key"]: f["detail"] for f in found if f["code"] == "not_run"}
    assert not_run["rates rules"] == "not run: needs nn_catchments (not read)"
    assert not_run["coefficient geometry, overlap and coverage rules"] == (
        "not run: needs nn_catchments (not read)"
    )
    assert "permit rules" not in not_run
    assert ("ref_rates_catchment", "occupancy_rates") not in codes
    assert ("coverage_gap", "land_use_coefficients") not in codes
    _untouched(tmp_path)


def test_a_levy_csv_that_is_a_pipe_is_refused_and_the_rest_is_gated_without_waiting_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing opens the pipe, not even for its digest: with no writer, reading it never ends."""

    def fifo(_: Path, paths: dict[str, Path]) -> None:
        paths["charges"].unlink()
        os.mkfifo(paths["charges"])

    status, found, err = _build(tmp_path, capsys, before=_bowtie, after=fifo)
    assert status == UNREADABLE, err
    codes = {(f["code"], f["layer"]) for f in found}
    assert ("source_corrupt", "levy_charges") in codes
    assert ("geometry_invalid", "nn_catchments") in codes
    assert "not a regular file" in err
    _untouched(tmp_path)
