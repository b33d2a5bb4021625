"""The bundle diff as readable text: row changes, rate changes, and sites whose quote moved."""

from __future__ import annotations

from decimal import Decimal
from typing import Any


def _delta(old: Any, new: Any, money: bool = False) -> str:
    if old is None or new is None:
        return f"{old} -> {new}"
    if money:
        change = Decimal(new) - Decimal(old)
        return f"£{Decimal(old):,.2f} -> £{Decimal(new):,.2f} ({change:+,.2f})"
    return f"{old:.2f} -> {new:.2f} ({new - old:+.2f})"


def _change(change: dict[str, Any]) -> str:
    """A changed row by its changed fields (`base_charge_per_unit 2193.6649 -> 2675.0000`)."""
    if change["change"] == "changed":
        return "; ".join(f"{f['field']} {f['old']} -> {f['new']}" for f in change["fields"])
    row = ", ".join(f"{k} {v}" for k, v in change["row"].items())
    return f"{change['change']} ({row})"


def _levy(figures: dict[str, Any]) -> str:
    if figures.get("levy_refused"):
        return f"refused ({figures['levy_refused']})"
    amount = figures.get("levy_gbp")
    return "not priced" if amount is None else f"£{Decimal(amount):,.2f}"


def _levy_delta(was: dict[str, Any], now: dict[str, Any]) -> str:
    if was.get("levy_gbp") is not None and now.get("levy_gbp") is not None:
        return _delta(was["levy_gbp"], now["levy_gbp"], money=True)
    return f"{_levy(was)} -> {_levy(now)}"


def render_diff(doc: dict[str, Any]) -> str:
    old, new = doc["old"], doc["new"]
    lines = [
        f"old: {old['name']} {old['version']} (sha256 {old['sha256'][:12]}…)",
        f"new: {new['name']} {new['version']} (sha256 {new['sha256'][:12]}…)",
        "",
        f"{'layer / table':<24} {'old rows':>10} {'new rows':>10} {'added':>8} {'removed':>8} "
        f"{'changed':>8}",
    ]
    for r in doc["rows"]:
        lines.append(
            f"{r['name']:<24} {r['old_rows']:>10,} {r['new_rows']:>10,} {r['added']:>8,} "
            f"{r['removed']:>8,} {r['changed']:>8,}"
        )
    rounding = doc["levy_rounding"]
    moved = "unchanged" if rounding["old"] == rounding["new"] else "CHANGED"
    lines += ["", f"levy rounding: {rounding['old']} -> {rounding['new']} ({moved})"]
    lines += ["", f"rate changes: {len(doc['rate_changes'])}"]
    lines += [
        f"  {change['table']} {change['key']}: {_change(change)}" for change in doc["rate_changes"]
    ]
    changed = doc["sites_changed"]
    lines += [
        "",
        f"quotes ({doc['rule_set']}): {len(changed)} of {doc['sites_assessed']} sites changed",
    ]
    for site in changed:
        was, now = site["old"], site["new"]
        if was is None or now is None:
            state = "now in scope" if was is None else "now out of scope"
            lines.append(f"  site {site['rlb_id']} ({site['id']}): {state}")
            continue
        lines.append(
            f"  site {site['rlb_id']} ({site['id']}): N {_delta(was['n_total'], now['n_total'])} "
            f"kg/yr; P {_delta(was['p_total'], now['p_total'])} kg/yr; levy "
            f"{_levy_delta(was, now)}"
        )
    return "\n".join(lines) + "\n"
