"""Read the tariff CSV (Defra has no tariff source yet) as text, so no penny is lost to floats.

Its values are checked by the quality gate with the reader's own rules, not here, so a bad
value is reported once.
"""

from __future__ import annotations

import csv
from pathlib import Path

from nrf.adapters.boundary_data import geopackage_lookups as lookups
from nrf.bundles.geopackage_writer import Table
from nrf.bundles.qc.report import QcReport

LEVY = "levy_rates"
LEVY_CSV = ("edp_id", "edp_name", "n_gbp_per_kg", "p_gbp_per_kg", *lookups.SHARES)


def read_levy_csv(path: Path, report: QcReport) -> Table:
    """The tariff CSV as text columns (so the reader's Decimals keep every penny)."""
    out: list[tuple[object, ...]] = []
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in LEVY_CSV if c not in (reader.fieldnames or [])]
            for column in missing:
                report.add("source_missing", LEVY, f"{path.name}:{column}", f"no column '{column}'")
            if not missing:
                out = [tuple((r[c] or "").strip() or None for c in LEVY_CSV) for r in reader]
    except OSError as exc:
        report.add("source_missing", LEVY, str(path), f"cannot read ({exc})")
    return Table(LEVY, [(c, "TEXT") for c in LEVY_CSV], out)
