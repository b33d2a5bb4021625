"""`nrf bundle diff OLD NEW`: what changed in the data, and what that does to quotes.

The question a reviewer asks is "whose levy moves, and by how much?", so besides row counts
and rate changes the diff re-assesses a sample of sites (the bundled Broads & Wensum samples
unless given) under both bundles and lists every site whose N, P or levy changed. A changed
row is shown by the fields that changed, old and new, so a reviewer reads
"base_charge_per_unit 2193.6649 -> 2675.0000", not two copies of the row.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from attrs import asdict, frozen

from nrf.adapters.boundary_data.geopackage_boundary_data import GeoPackageBoundaryData
from nrf.bundles.diff_rows import (
    KEYS,
    RowDiff,
    diff_coefficients,
    diff_small,
    levy_rows,
    open_bundle,
)
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.charging import utc_day
from nrf.domain.model import Development
from nrf.domain.results import SiteAssessment
from nrf.domain.rules import RuleSet

TABLES_WITH_RATES = (
    "levy_charges",
    "levy_inflation_index",
    "levy_settings",
    "occupancy_rates",
    "wwtw_permits",
)


@frozen(kw_only=True)
class SiteChange:
    """One site whose figures differ: old and new N, P (kg/yr) and levy (£ excluding VAT, or
    the code it was refused with); None = out of scope."""

    rlb_id: int
    id: str
    old: dict[str, Any] | None
    new: dict[str, Any] | None


def _figures(site: SiteAssessment) -> dict[str, Any]:
    pricing, refusal = site.pricing, site.levy_refusal
    return {
        "n_total": site.n_total,
        "p_total": site.p_total,
        "levy_gbp": None if pricing is None else str(pricing.amount_excluding_vat),
        "levy_refused": None if refusal is None else refusal.code,
    }


def quote_changes(
    old: GeoPackageBoundaryData,
    new: GeoPackageBoundaryData,
    developments: Sequence[Development],
    rules: RuleSet,
) -> list[SiteChange]:
    today = utc_day(time.time())  # both bundles quoted on one day, so only the data differs
    runs = [AssessDevelopments(b)(developments, rules, today) for b in (old, new)]
    before = {s.site.rlb_id: _figures(s) for s in runs[0].sites}
    after = {s.site.rlb_id: _figures(s) for s in runs[1].sites}
    return [
        SiteChange(rlb_id=d.rlb_id, id=d.id, old=before.get(d.rlb_id), new=after.get(d.rlb_id))
        for d in developments
        if before.get(d.rlb_id) != after.get(d.rlb_id)
    ]


def _rate_rows(bundle: GeoPackageBoundaryData) -> dict[str, dict[str, Any]]:
    lookups = bundle.lookups()
    db, schema = open_bundle(bundle.path)
    try:
        levy = levy_rows(db, schema)
    finally:
        db.close()
    return {
        **levy,
        "occupancy_rates": {
            **{f"catchment {k}": asdict(v) for k, v in lookups.rates.by_catchment.items()},
            **{f"category {k}": asdict(v) for k, v in lookups.rates.by_category.items()},
            "default": asdict(lookups.rates.default),
        },
        "wwtw_permits": {str(k): asdict(v) for k, v in lookups.permits.items()},
    }


def rate_changes(old: GeoPackageBoundaryData, new: GeoPackageBoundaryData) -> list[dict[str, Any]]:
    """Every charge, index, VAT, occupancy or permit row added, removed or changed."""
    return row_changes(_rate_rows(old), _rate_rows(new))


def row_changes(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Per table and key: an added or removed row whole, a changed one by its changed fields."""
    out: list[dict[str, Any]] = []
    for table in TABLES_WITH_RATES:
        for key in sorted(set(a[table]) | set(b[table])):
            was, now = _plain(a[table].get(key)), _plain(b[table].get(key))
            if was == now:
                continue
            change: dict[str, Any] = {"table": table, "key": key}
            if was is None or now is None:
                change["change"] = "added" if was is None else "removed"
                change["row"] = now if was is None else was
            else:
                change["change"] = "changed"
                change["fields"] = [
                    {"field": f, "old": was.get(f), "new": now.get(f)}
                    for f in sorted(set(was) | set(now))
                    if was.get(f) != now.get(f)
                ]
            out.append(change)
    return out


def _plain(row: dict[str, Any] | None) -> dict[str, Any] | None:
    return (
        None
        if row is None
        else {k: str(v) if isinstance(v, Decimal) else v for k, v in row.items()}
    )


def diff_bundles(
    old_path: Path, new_path: Path, developments: Sequence[Development], rules: RuleSet
) -> dict[str, Any]:
    """The whole diff as JSON-ready data."""
    old_db, old_schema = open_bundle(old_path)
    new_db, new_schema = open_bundle(new_path)
    try:
        rows: list[RowDiff] = [
            diff_small((old_db, old_schema), (new_db, new_schema), n) for n in KEYS
        ]
        rows.append(
            diff_coefficients(
                new_db,
                new_schema["land_use_coefficients"],
                old_path,
                old_schema["land_use_coefficients"],
            )
        )
    finally:
        old_db.close()
        new_db.close()
    old, new = GeoPackageBoundaryData(old_path), GeoPackageBoundaryData(new_path)
    changes = quote_changes(old, new, developments, rules)
    return {
        "old": asdict(old.info()),
        "new": asdict(new.info()),
        "rows": [asdict(r) for r in rows],
        "rate_changes": rate_changes(old, new),
        # Where each bundle rounds the levy: a change moves quotes with no row of figures changed.
        "levy_rounding": {
            "old": old.lookups().levy_rounding.value,
            "new": new.lookups().levy_rounding.value,
        },
        "rule_set": rules.name,
        "sites_assessed": len(developments),
        "sites_changed": [asdict(c) for c in changes],
    }
