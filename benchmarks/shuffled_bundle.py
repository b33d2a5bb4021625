"""`python -m benchmarks.shuffled_bundle BUNDLE OUT [--order shuffled|hilbert]`: the same
bundle with its coefficient parcels stored in another order.

The generator writes parcels row by row of its grid, so a site's parcels sit on a few
neighbouring pages of the file; a delivery built with ``nrf bundle build`` arrives in whatever
order Defra's export wrote it. ``shuffled`` stores the same rows (same geometries and values)
in a seeded random order, renumbered 1..N in that order, with the R-tree rebuilt by inserting
in fid order as the writer does: the rig-like bundle. ``hilbert`` stores them in the Hilbert
order of their bounding-box centres (``benchmarks.hilbert_order``). The copy is vouched for
(every geometry checked, digest recorded) like the cached bundle, and its generation record
(``.json``, the random sites' extent) is copied beside it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.hilbert_order import hilbert_keys
from nrf.adapters.boundary_data.geopackage_schema import COEFFICIENT_LAYER, q
from nrf.bundles.vouch import vouch_for_bundle

SEED = 20261128
RTREE = f"rtree_{COEFFICIENT_LAYER}_geom"


def new_order(db: sqlite3.Connection, order: str, seed: int) -> np.ndarray:
    """The old fids in the order they are to be stored."""
    rows = np.array(db.execute(f"SELECT id, minx, maxx, miny, maxy FROM {q(RTREE)}").fetchall())
    fids = rows[:, 0].astype(np.int64)
    if order == "shuffled":
        return np.random.default_rng(seed).permutation(np.sort(fids))
    cx, cy = (rows[:, 1] + rows[:, 2]) / 2, (rows[:, 3] + rows[:, 4]) / 2
    keys = hilbert_keys(cx, cy)
    return fids[np.lexsort((fids, keys))]


def reorder(src: Path, out: Path, order: str, seed: int = SEED) -> None:
    """Write ``out``: ``src`` with its parcels renumbered and stored in ``order``."""
    work = out.with_name(f".{out.name}.work")
    shutil.copyfile(src, work)
    db = sqlite3.connect(work, isolation_level=None)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("PRAGMA cache_size=-262144")
    db.execute("BEGIN")
    olds = new_order(db, order, seed)
    db.execute("CREATE TEMP TABLE perm (new INTEGER PRIMARY KEY, old INTEGER NOT NULL)")
    db.executemany("INSERT INTO perm VALUES (?, ?)", enumerate(olds.tolist(), start=1))
    ddl = db.execute(
        "SELECT sql FROM sqlite_master WHERE name = ?", (COEFFICIENT_LAYER,)
    ).fetchone()[0]
    columns = [r[1] for r in db.execute(f"PRAGMA table_info({q(COEFFICIENT_LAYER)})")]
    rest = ", ".join(f"t.{q(c)}" for c in columns if c != "fid")
    db.execute(ddl.replace(q(COEFFICIENT_LAYER), q("reordered"), 1))
    db.execute(
        f"INSERT INTO reordered SELECT p.new, {rest} FROM perm p "
        f"JOIN {q(COEFFICIENT_LAYER)} t ON t.fid = p.old ORDER BY p.new"
    )
    db.execute(
        "CREATE TEMP TABLE boxes AS SELECT p.new AS id, r.minx, r.maxx, r.miny, r.maxy "
        f"FROM perm p JOIN {q(RTREE)} r ON r.id = p.old ORDER BY p.new"
    )
    db.execute(f"DROP TABLE {q(COEFFICIENT_LAYER)}")
    db.execute(f"ALTER TABLE reordered RENAME TO {q(COEFFICIENT_LAYER)}")
    db.execute(f"DROP TABLE {q(RTREE)}")
    db.execute(f"CREATE VIRTUAL TABLE {q(RTREE)} USING rtree(id, minx, maxx, miny, maxy)")
    db.execute(f"INSERT INTO {q(RTREE)} SELECT * FROM boxes ORDER BY id")
    db.execute("COMMIT")
    out.unlink(missing_ok=True)
    db.execute("VACUUM INTO ?", (str(out),))  # compact: the dropped table's pages go
    db.close()
    work.unlink()
    vouch_for_bundle(out)
    meta_path = src.with_suffix(".json")
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        # The report is named and headed by its kind: a shuffled run does not overwrite
        # the grid-ordered one's.
        kind = f"{meta.get('kind', 'simple')}-{order}"
        meta.update(size=out.stat().st_size, kind=kind, parcel_order=order, order_seed=seed)
        out.with_suffix(".json").write_text(json.dumps(meta, indent=1))


def cached_shuffled(bundle: Path, meta: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """(path, metadata) of ``bundle``'s shuffled copy beside it, made once (``--shuffled``)."""
    out = bundle.with_name(f"{bundle.stem}-shuffled.gpkg")
    meta_path = out.with_suffix(".json")
    if out.is_file() and meta_path.is_file():
        cached = json.loads(meta_path.read_text())
        if cached.get("size") == out.stat().st_size and cached.get("polygons") == meta["polygons"]:
            return out, cached
    started = time.perf_counter()
    print(f"bundle: writing {out.name}, parcels in random order", file=sys.stderr)
    reorder(bundle, out, "shuffled")
    made = json.loads(meta_path.read_text())
    made["shuffle_seconds"] = round(time.perf_counter() - started, 1)
    meta_path.write_text(json.dumps(made, indent=1))
    return out, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--order", choices=("shuffled", "hilbert"), default="shuffled")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    started = time.perf_counter()
    reorder(args.bundle, args.out, args.order, args.seed)
    print(
        f"wrote {args.out} ({args.order}) in {time.perf_counter() - started:.1f} s", file=sys.stderr
    )


if __name__ == "__main__":
    main()
