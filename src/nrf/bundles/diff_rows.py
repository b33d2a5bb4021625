"""Rows added, removed and changed between two bundles, per layer and table, matched by key.

Small layers and tables are compared in Python by key (every row of a key, geometry
included). The coefficient layer is compared inside SQLite with the old bundle attached, so
two 5 M-row layers are never held in memory; it is matched by ``cromeid`` when both have it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

from attrs import frozen

from nrf.adapters.boundary_data.geopackage_schema import TableSchema, check_schema, q
from nrf.domain.errors import BrokenBundle

SAMPLE = 20
# The key a row of each layer or table is matched by.
KEYS = {
    "nn_catchments": ("n2k_site_name",),
    "wwtw_catchments": ("wwtw_id",),
    "lpa_boundaries": ("name",),
    "subcatchments": ("opcat_name",),
    "wwtw_permits": ("wwtw_id",),
    "occupancy_rates": ("nn_catchment", "dwelling_category"),
    "edp_boundaries": ("edp_name",),
    "excluded_areas": ("name",),
    "levy_charges": ("edp_id", "charge_valid_from"),
    "levy_inflation_index": ("charging_year",),
}
# The levy's own inputs, compared field by field: how each row is named, and its fields.
LEVY_TABLES = {
    "levy_charges": lambda r: f"edp_id {r['edp_id']} from {r['charge_valid_from']}",
    "levy_inflation_index": lambda r: f"charging_year {r['charging_year']}",
    "levy_settings": lambda r: str(r["key"]),
}


@frozen(kw_only=True)
class RowDiff:
    """Counts, and the first keys of each kind, for one layer or table."""

    name: str
    old_rows: int
    new_rows: int
    added: int
    removed: int
    changed: int
    examples: dict[str, list[str]]


def open_bundle(path: Path) -> tuple[sqlite3.Connection, dict[str, TableSchema]]:
    if not path.is_file():
        raise BrokenBundle(f"bundle file not found: {path}")
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        schema, problems = check_schema(db)
    except sqlite3.DatabaseError as exc:
        problems = [f"not a GeoPackage ({exc})"]
    if problems:
        db.close()
        raise BrokenBundle(f"{path.name}: " + "; ".join(problems))
    return db, schema


def levy_rows(
    db: sqlite3.Connection, schema: dict[str, TableSchema]
) -> dict[str, dict[str, dict[str, Any]]]:
    """Each levy table's rows by their own key, as stored (exact text: no float, no rounding)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name, key_of in LEVY_TABLES.items():
        t = schema.get(name)
        if t is None:  # a bundle made before the charging schedule
            out[name] = {}
            continue
        sql = f"SELECT {', '.join(q(c) for c in t.columns.values())} FROM {q(t.name)}"
        rows = [dict(zip(t.columns, r, strict=True)) for r in db.execute(sql)]
        out[name] = {key_of(r): r for r in rows}
    return out


def _grouped(db: sqlite3.Connection, t: TableSchema, name: str) -> dict[str, list[str]]:
    cols = [t.columns[c] for c in t.columns] + ([t.geometry_column] if t.geometry_column else [])
    out: dict[str, list[str]] = defaultdict(list)
    for row in db.execute(f"SELECT {', '.join(q(c) for c in cols)} FROM {q(t.name)}"):
        values = dict(zip(t.columns, row, strict=False))
        key = " / ".join(str(values[k]) for k in KEYS[name] if values[k] is not None)
        out[key].append(hashlib.sha1(repr(row).encode()).hexdigest())
    return {k: sorted(v) for k, v in out.items()}


def diff_small(old: tuple[Any, Any], new: tuple[Any, Any], name: str) -> RowDiff:
    a, b = _grouped(old[0], old[1][name], name), _grouped(new[0], new[1][name], name)
    added = sorted(set(b) - set(a))
    removed = sorted(set(a) - set(b))
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    return RowDiff(
        name=name,
        old_rows=sum(map(len, a.values())),
        new_rows=sum(map(len, b.values())),
        added=len(added),
        removed=len(removed),
        changed=len(changed),
        examples={
            "added": added[:SAMPLE],
            "removed": removed[:SAMPLE],
            "changed": changed[:SAMPLE],
        },
    )


def _columns(db: sqlite3.Connection, schema: str, table: str) -> dict[str, str]:
    rows = db.execute(f"PRAGMA {schema}.table_info({q(table)})")
    return {str(r[1]).casefold(): str(r[1]) for r in rows}


def _absent(table: str, key: str, other: str, other_key: str) -> str:
    """Keys of ``table`` that ``other`` lacks."""
    return (
        f"SELECT a.{key} FROM {table} a WHERE NOT EXISTS "
        f"(SELECT 1 FROM {other} b WHERE b.{other_key} = a.{key})"
    )


def diff_coefficients(
    new_db: sqlite3.Connection, new: TableSchema, old_path: Path, old: TableSchema
) -> RowDiff:
    """Compare the coefficient layers in SQL, with the old bundle attached as ``old``."""
    new_db.execute("ATTACH DATABASE ? AS old", (f"{old_path.resolve().as_uri()}?mode=ro",))
    try:
        nc, oc = _columns(new_db, "main", new.name), _columns(new_db, "old", old.name)
        key = "cromeid" if "cromeid" in nc and "cromeid" in oc else None
        nk, ok = (q(nc[key]), q(oc[key])) if key else (q(new.key), q(old.key))
        nt, ot = f"main.{q(new.name)}", f"old.{q(old.name)}"
        geometry = str(new.geometry_column).casefold()
        shared = [c for c in (*new.columns, geometry) if c in nc and c in oc]
        differs = " OR ".join(f"n.{q(nc[c])} IS NOT o.{q(oc[c])}" for c in shared) or "0"
        counts = [int(new_db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in (ot, nt)]
        queries = {
            "added": _absent(nt, nk, ot, ok),
            "removed": _absent(ot, ok, nt, nk),
            "changed": f"SELECT n.{nk} FROM {nt} n JOIN {ot} o ON o.{ok} = n.{nk} WHERE {differs}",
        }
        found: dict[str, int] = {}
        examples: dict[str, list[str]] = {}
        for kind, sql in queries.items():
            found[kind], examples[kind] = 0, []
            for (value,) in new_db.execute(sql):
                found[kind] += 1
                if found[kind] <= SAMPLE:
                    examples[kind].append(str(value))
        return RowDiff(
            name=new.name,
            old_rows=counts[0],
            new_rows=counts[1],
            added=found["added"],
            removed=found["removed"],
            changed=found["changed"],
            examples=examples,
        )
    finally:
        new_db.execute("DETACH DATABASE old")
