"""Vouch for a finished bundle's digest once, so readers skip checking its geometries.

A reader then trusts that exact file (``validation_record``): it opens without decoding the
small layers and reads coefficient polygons without re-checking them, instead of paying for
the checks in every fresh process and on every site. ``nrf bundle build`` calls
``record_checked_by_gate`` once the file is final, since its quality gate has already checked
every geometry; a bundle made without that gate (the benchmarks' generated bundles) goes
through ``vouch_for_bundle``, which checks every geometry first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from nrf.adapters.boundary_data.bundle_digest import file_sha256
from nrf.adapters.boundary_data.geopackage_schema import COEFFICIENT_LAYER, check_schema, q
from nrf.adapters.boundary_data.small_layers import SMALL_LAYERS, decode_checked
from nrf.adapters.boundary_data.validation_record import record_valid
from nrf.domain.errors import BrokenBundle

_CHUNK = 200_000
Progress = Callable[[str, int], None]


def check_layer(db: sqlite3.Connection, table: str, key: str, geom: str) -> int:
    """Decode and check every geometry of one layer in chunks; how many there were."""
    done = 0
    cursor = db.execute(f"SELECT {q(key)}, {q(geom)} FROM {q(table)} ORDER BY {q(key)}")
    while rows := cursor.fetchmany(_CHUNK):
        decode_checked(table, [r[0] for r in rows], [r[1] for r in rows])
        done += len(rows)
    return done


def vouch_for_bundle(path: str | Path, progress: Progress | None = None) -> str:
    """Check every layer of ``path`` (BrokenBundle if any geometry is bad), then record that
    this digest was checked; returns the digest. Also writes the digest sidecar."""
    target = Path(path)
    db = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True)
    try:
        schema, problems = check_schema(db)
        if problems:
            raise BrokenBundle(f"{target.name}: " + "; ".join(problems))
        layers = (*SMALL_LAYERS, COEFFICIENT_LAYER)
        for name in layers:
            table = schema[name]
            count = check_layer(db, table.name, table.key, table.geometry_column or "")
            if progress is not None:
                progress(name, count)
    finally:
        db.close()
    digest = file_sha256(target)
    record_valid(target, layers, sha256=digest)
    return digest


def record_checked_by_gate(path: str | Path) -> str:
    """For a builder whose own quality gate already checked every geometry of every layer of
    the final file: record its digest as checked, without checking again; returns the digest.

    Call it only after the file is closed and will not change (``nrf bundle build``: after
    the gate passed and the writer closed). Anything else should call ``vouch_for_bundle``.
    """
    target = Path(path)
    digest = file_sha256(target)
    record_valid(target, (*SMALL_LAYERS, COEFFICIENT_LAYER), sha256=digest)
    return digest
