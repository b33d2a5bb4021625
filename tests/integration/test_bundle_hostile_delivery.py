"""`nrf bundle build` and `check` against a hostile delivery or bundle.

A shapefile's .dbf linked to a file outside the delivery, a name holding ``<script>`` that
reached qc.md raw, a charge of 32 nines (passed the gate; then every quote of that EDP was a
500), a recursive view named ``levy_charges`` (the gate never ended) and a levy CSV of
hundreds of thousands of rows (a million cost 1.8 GB): each is refused with its finding, and
nothing is read from outside the delivery, from the view or from the oversized file.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from test_bundle_quality_gate import WINDOW, build, errors

from nrf.bundles.qc.report import QcReport
from nrf.entrypoints.cli import main
from support.delivery import FixtureData, build_command, write_delivery

RECURSIVE = (
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
    "SELECT n.x AS fid, c.* FROM n, real_charges AS c"
)


def test_a_dbf_linked_from_outside_the_delivery_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "iat_input"
    paths = write_delivery(root, FixtureData())
    [dbf] = (root / "nutrients" / "EDP").glob("EDP_Boundaries.dbf")
    outside = tmp_path / "elsewhere.dbf"
    dbf.rename(outside)
    dbf.symlink_to(outside)  # the .shp and .shx stay: only the table is someone else's
    assert main(build_command(root, paths, tmp_path / "out.gpkg", "2")) == 6
    assert errors(tmp_path)["source_outside"] == {
        "nutrients/EDP/EDP_Boundaries.shp (EDP_Boundaries.dbf)"
    }
    assert not (tmp_path / "out.gpkg").exists()


def test_a_charge_of_32_nines_is_refused_naming_its_line(tmp_path: Path) -> None:
    data = FixtureData()
    data.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "9" * 32)
    assert build(tmp_path, data) == 5
    assert errors(tmp_path)["charge_invalid"] == {"edp_id 1 from 2027-04-01"}
    detail = (tmp_path / "out.qc.md").read_text()
    assert "line 3" in detail and "over £1,000,000 a unit" in detail
    # The most a unit may be charged is still a charge (the control).
    good = tmp_path / "good"
    good.mkdir()
    data.charges[1] = WINDOW.format("2027-04-01", "2028-03-31", "1000000.0000")
    assert build(good, data) == 0


def test_check_refuses_a_bundle_whose_levy_charges_is_a_recursive_view(tmp_path: Path) -> None:
    assert build(tmp_path, FixtureData()) == 0
    bundle = tmp_path / "out.gpkg"
    with sqlite3.connect(bundle) as db:
        db.execute("ALTER TABLE levy_charges RENAME TO real_charges")
        db.execute(f"CREATE VIEW levy_charges AS {RECURSIVE}")
    db.close()
    # In a child with a time limit: before, the gate read the view for ever.
    done = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "bundle", "check", str(bundle)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 5, done.stderr
    assert "levy_charges is a view, not a table" in done.stdout + done.stderr


def test_names_from_the_delivery_reach_qc_md_as_text() -> None:
    report = QcReport()
    name = "<script>alert(1)</script>\n# forged heading"
    report.add("key_missing", "nn_catchments", f"source fid 1 ({name})", f"in `{name}.shp`")
    report.figures["sources"] = [f"{name}.shp"]
    text = report.markdown("out.gpkg")
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert not [line for line in text.splitlines() if line.startswith("# forged")]


def test_a_levy_csv_larger_than_any_schedule_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    root = tmp_path / "iat_input"
    paths = write_delivery(root, FixtureData())
    text = paths["charges"].read_text()
    header, first = text.splitlines()[:2]
    # 200,000 copies of one 52-byte row: 10.4 MB, over the 10 MiB (10,485,760 bytes) bound.
    rows = "\n".join([header, *[first] * 200_000]) + "\n"
    assert len(rows.encode()) > 10 * 1024 * 1024
    paths["charges"].write_text(rows)
    assert main(build_command(root, paths, tmp_path / "out.gpkg", "2")) == 6
    assert errors(tmp_path)["source_too_large"] == {paths["charges"].name}
    assert not (tmp_path / "out.gpkg").exists()
