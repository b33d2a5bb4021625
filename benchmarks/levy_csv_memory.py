"""`python -m benchmarks.levy_csv_memory`: the peak RSS of `nrf bundle build` with a huge levy CSV.

A million-row levy CSV once cost the build 1.8 GB (and then anything over 10 MiB was refused);
its rows are now streamed through a spool on disk. The delivery is ``bundle_build``'s with a
few thousand coefficient polygons, built twice, each build a child process so its peak RSS is
its own: once with the synthetic schedule (one row), once with that row followed by ``--rows``
minus one daily windows of the same EDP from the day after it ends, written as Excel on a UK
Windows saves a CSV (day-first dates, "£" in Windows-1252), so the build also finds the
encoding and the date order over the whole file. The difference is what the rows cost.

    python -m benchmarks.levy_csv_memory [--rows 1000000] [--polygons 2000] [--work DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

from benchmarks.bundle_build import make_delivery
from nrf.bundles import synthetic_norfolk as norfolk


def write_schedule(path: Path, rows: int) -> None:
    """The synthetic schedule's row, then ``rows - 1`` one-day windows after it, as Excel
    writes them on a UK Windows (cp1252, CRLF, day-first dates, "£2,675.0000")."""
    table = norfolk.levy_charges_table()
    [first] = table.rows
    edp_id, name, start, _, valid_to, _ = first
    day = date.fromisoformat(str(valid_to))
    with path.open("w", encoding="cp1252", newline="") as handle:
        out = csv.writer(handle)  # CRLF line ends, as Excel's
        out.writerow([column for column, _ in table.columns])
        out.writerow(first)
        shown_start = date.fromisoformat(str(start)).strftime("%d/%m/%Y")
        for n in range(rows - 1):
            day += timedelta(days=1)
            shown = day.strftime("%d/%m/%Y")
            out.writerow([edp_id, name, shown_start, shown, shown, f"£{2675 + n % 100:,}.0000"])


def build(root: Path, work: Path, charges: Path) -> dict[str, object]:
    """One build in a child: its exit code, seconds and peak RSS (MB, from wait4)."""
    bundle = work / "bundle.gpkg"
    command = [
        *(sys.executable, "-m", "nrf.entrypoints.cli", "bundle", "build", str(root)),
        *("--output", str(bundle), "--version", "bench"),
        *("--default-occupancy", "2.4", "--default-water-usage", "120"),
        *("--manifest", str(work / "sources.toml"), "--levy-charges", str(charges)),
    ]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    bundle.unlink(missing_ok=True)
    return {
        "exit_code": child.returncode,
        "seconds": round(seconds, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "csv_bytes": charges.stat().st_size,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--polygons", type=int, default=2_000)
    parser.add_argument("--work", type=Path, default=Path("out/bench-levy-csv"))
    args = parser.parse_args(argv)
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    root, _ = make_delivery(work, args.polygons)
    small, large = work / "schedule-1.csv", work / f"schedule-{args.rows}.csv"
    write_schedule(small, 1)
    started = time.perf_counter()
    write_schedule(large, args.rows)
    print(
        f"{args.rows:,}-row CSV written in {time.perf_counter() - started:.0f} s", file=sys.stderr
    )
    one_row, many_rows = build(root, work, small), build(root, work, large)
    result = {
        "rows": args.rows,
        "polygons": args.polygons,
        "one_row": one_row,
        "many_rows": many_rows,
        "load_average": os.getloadavg(),
        "max_rss_of_children_mb": round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        ),
    }
    print(json.dumps(result, indent=1))
    shutil.rmtree(work)
    return 0 if one_row["exit_code"] == many_rows["exit_code"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
