"""Copies of the bundled bundle with another identity, for tests of how bundles are delivered."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from nrf.adapters.boundary_data.packaged import bundled_reference_data


def relabelled_bundle(
    target: Path, *, name: str, version: str, description: str = "test fixture"
) -> Path:
    """The bundled bundle's data under a new name, version and description.

    Without "synthetic" in the name or description the worker takes it for real data: the
    figures are the synthetic ones, but nothing here reads them as a real levy.
    """
    shutil.copyfile(bundled_reference_data(), target)
    with closing(sqlite3.connect(target)) as db, db:
        db.execute(
            "UPDATE bundle_info SET name = ?, version = ?, description = ?",
            (name, version, description),
        )
    return target
