"""`nrf bundle build` and `check` against a hostile delivery or bundle.

A shapefile's .dbf linked to a file outside the delivery, a name holding ``<script>`` that
reached qc.md raw, a charge of 32 nines (passed the gate; then every quote of that EDP was a
500), a recursive view named ``levy_charges`` (the gate never ended) and a levy CSV of
over 2 GiB: each is refused with its finding, and nothing is read from outside the delivery,
from the view or from the oversized file. A levy CSV of hundreds of thousands of rows (a
million once cost 1.8 GB, and over 10 MiB was refused) is streamed into the bundle.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from test_bundle_quality_gate import WINDOW, build, errors, report

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


def schedule_rows(rows: int) -> Iterator[bytes]:
    """``rows`` daily charging windows of EDP 1 from 1 April 2026, as Excel on a UK Windows
    writes them: day-first dates, and charges in pounds with "£" (0xa3 in Windows-1252)."""
    start = date(2026, 4, 1)
    for n in range(rows):
        day = (start + timedelta(days=n)).strftime("%d/%m/%Y")
        charge = f"{2675 + n % 100:,}.0000"
        yield f'1,Yare EDP,01/04/2026,{day},{day},"\xa3{charge}"\r\n'.encode("cp1252")


@pytest.mark.slow
def test_a_levy_csv_of_200000_rows_is_streamed_into_the_bundle(tmp_path: Path) -> None:
    # Before, a file over 10 MiB (about 100,000 rows) was refused: a million rows cost the
    # build 1.8 GB held as text and rows. Its encoding and date order are now found by a
    # first pass over the file and its rows streamed through a spool on disk.
    root = tmp_path / "iat_input"
    paths = write_delivery(root, FixtureData())
    header = "edp_id,edp_name,edp_start_date,charge_valid_from,charge_valid_to,base_charge_per_unit"
    with paths["charges"].open("wb") as out:
        out.write(header.encode() + b"\r\n")
        out.writelines(schedule_rows(200_000))
    assert paths["charges"].stat().st_size > 10 * 1024 * 1024
    assert main(build_command(root, paths, tmp_path / "out.gpkg", "2")) == 0
    with sqlite3.connect(tmp_path / "out.gpkg") as db:
        count, lines = db.execute(
            "SELECT count(*), count(DISTINCT source_line) FROM levy_charges"
        ).fetchone()
        first, last = db.execute(
            "SELECT edp_start_date, charge_valid_from, charge_valid_to, base_charge_per_unit, "
            "source_line FROM levy_charges WHERE fid IN ((SELECT min(fid) FROM levy_charges), "
            "(SELECT max(fid) FROM levy_charges)) ORDER BY fid"
        ).fetchall()
    db.close()
    assert (count, lines) == (200_000, 200_000)
    # Row n (line n + 2) is day n after 1 April 2026 at £2,675 + n % 100: 199,999 days later
    # is 29 October 2573, at £2,675 + 99.
    assert first == ("2026-04-01", "2026-04-01", "2026-04-01", "2675.0000", 2)
    assert last == ("2026-04-01", "2573-10-29", "2573-10-29", "2774.0000", 200_001)
    cleaned = {f["detail"] for f in report(tmp_path)["findings"] if f["code"] == "cleaned"}
    assert any(d.startswith("read as Windows-1252, not UTF-8 (byte 0xa3") for d in cleaned)


def test_a_levy_csv_over_2_gib_is_refused_before_it_is_read(tmp_path: Path) -> None:
    root = tmp_path / "iat_input"
    paths = write_delivery(root, FixtureData())
    with paths["charges"].open("r+b") as out:
        out.truncate(2 * 1024**3 + 1)  # sparse: no disk is used, and none of it is read
    assert main(build_command(root, paths, tmp_path / "out.gpkg", "2")) == 6
    assert errors(tmp_path)["source_too_large"] == {paths["charges"].name}
    assert not (tmp_path / "out.gpkg").exists()
