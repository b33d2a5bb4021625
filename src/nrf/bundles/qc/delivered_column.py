"""The delivered name of a bundle column, as the build recorded it in `bundle_columns`.

A data manager fixes the delivery, so a finding names the column as delivered (`LU_CurrPcoeff`,
or the name the delivery's manifest gave it), not the bundle's `lu_curr_p_coeff`. A bundle
built before the names were recorded, or elsewhere, has no record: its findings name the
bundle's column, or the name they always gave (Defra's, where a rule wrote it in).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from attrs import field, frozen

from nrf.bundles.delivered_columns import TABLE


@frozen
class ColumnNames:
    """One role's bundle column -> delivered name; a column not recorded keeps its own name."""

    delivered: Mapping[str, str] = field(factory=dict)

    def __call__(self, column: str, unrecorded: str | None = None) -> str:
        """The delivered name of ``column``; else ``unrecorded``, else the column itself."""
        return self.delivered.get(column) or unrecorded or column


def column_names(db: sqlite3.Connection, role: str) -> ColumnNames:
    """The names ``role``'s columns were delivered under; none for a bundle without the table."""
    try:
        rows = db.execute(
            f'SELECT "column", delivered FROM "{TABLE}" WHERE role = ? ORDER BY rowid', (role,)
        ).fetchall()
    except sqlite3.Error:
        return ColumnNames()
    return ColumnNames({str(c): str(d) for c, d in rows if c is not None and d is not None})
