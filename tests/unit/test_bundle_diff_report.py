"""The diff names the changed field of a changed row, and a levy moving in or out of refusal."""

from __future__ import annotations

from typing import Any

from nrf.bundles.diff import TABLES_WITH_RATES, row_changes
from nrf.bundles.diff_report import render_diff

CHARGE = {
    "edp_id": 1,
    "edp_name": "Norfolk EDP",
    "edp_start_date": "2026-04-01",
    "charge_valid_from": "2026-04-01",
    "charge_valid_to": "2027-03-31",
    "base_charge_per_unit": "2193.6649",
}


def tables(**rows: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t: rows.get(t, {}) for t in TABLES_WITH_RATES}


def test_a_changed_row_is_shown_by_its_changed_field_only() -> None:
    key = "edp_id 1 from 2026-04-01"
    corrected = {**CHARGE, "base_charge_per_unit": "2675.0000"}
    changes = row_changes(tables(levy_charges={key: CHARGE}), tables(levy_charges={key: corrected}))
    assert changes == [
        {
            "table": "levy_charges",
            "key": key,
            "change": "changed",
            "fields": [{"field": "base_charge_per_unit", "old": "2193.6649", "new": "2675.0000"}],
        }
    ]
    text = render_diff(document(changes, []))
    line = "  levy_charges edp_id 1 from 2026-04-01: base_charge_per_unit 2193.6649 -> 2675.0000"
    assert line in text.splitlines()
    assert "{" not in text  # no dict repr anywhere
    # Each bundle's rounding rule, and whether it changed: a change moves quotes by itself.
    assert "levy rounding: per_unit -> round_total (CHANGED)" in text.splitlines()


def test_an_added_or_removed_row_is_shown_whole_and_an_unchanged_one_not_at_all() -> None:
    old = tables(levy_inflation_index={"charging_year 2026": {"charging_year": 2026}})
    new = tables(
        levy_inflation_index={
            "charging_year 2026": {"charging_year": 2026},
            "charging_year 2027": {"charging_year": 2027, "index_factor": "1.0300"},
        }
    )
    changes = row_changes(old, new)
    assert [(c["key"], c["change"]) for c in changes] == [("charging_year 2027", "added")]
    text = render_diff(document(changes, []))
    assert (
        "  levy_inflation_index charging_year 2027: added (charging_year 2027, index_factor 1.0300)"
        in text.splitlines()
    )
    assert [c["change"] for c in row_changes(new, old)] == ["removed"]


def test_a_levy_refused_or_priced_is_said_in_words() -> None:
    n = {"n_total": 1.5, "p_total": 0.1}
    site = {
        "rlb_id": 7,
        "id": "s7",
        "old": {**n, "levy_gbp": "43873.20", "levy_refused": None},
        "new": {**n, "levy_gbp": None, "levy_refused": "no_charge_for_date"},
    }
    moved = {**site, "new": {**n, "levy_gbp": "53500.00", "levy_refused": None}}
    text = render_diff(document([], [site, moved]))
    assert "levy £43,873.20 -> refused (no_charge_for_date)" in text
    # 53,500.00 - 43,873.20 = 9,626.80
    assert "levy £43,873.20 -> £53,500.00 (+9,626.80)" in text


def document(changes: list[dict[str, Any]], sites: list[dict[str, Any]]) -> dict[str, Any]:
    info = {"name": "b", "version": "1", "sha256": "0" * 64}
    return {
        "old": info,
        "new": info,
        "rows": [],
        "rate_changes": changes,
        "levy_rounding": {"old": "per_unit", "new": "round_total"},
        "rule_set": "iat-2025-10",
        "sites_assessed": len(sites),
        "sites_changed": sites,
    }
