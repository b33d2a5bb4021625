"""`nrf bundle check`: re-run the quality gate over any bundle, built here or not."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

from nrf.bundles.qc.gate import previous_counts, run_gate
from nrf.bundles.qc.report import QcReport


def check_bundle(
    path: Path,
    *,
    previous: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> QcReport:
    """The gate's report on ``path``; written beside it when the folder is writable."""
    report = QcReport()
    if not path.is_file():
        report.add("schema", "bundle", str(path), "file not found")
        return report
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        before = previous_counts(previous) if previous else None
        run_gate(db, report, previous=before, progress=progress)
    except sqlite3.DatabaseError as exc:
        report.add("schema", "bundle", path.name, f"not a GeoPackage ({exc})")
    finally:
        db.close()
    with contextlib.suppress(OSError):
        report.write(path)
    return report
