"""Each bundle column's delivered name, recorded at build time so the gate speaks the delivery's.

A data manager mends the delivery, and `nrf bundle check` has only the bundle: a finding about
`lu_curr_p_coeff` must say `LU_CurrPcoeff`, or whatever name the delivery's manifest gave it. So
the build writes one `bundle_columns` row per column it read: role, the bundle's column, and the
name the manifest reads it by or, for a layer, as the file spells it (the file's own case, or an
alternative name the build fell back on). Most bundle columns carry their manifest role's name;
the few that do not are listed here, beside the manifest, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping

from nrf.bundles.manifest import Manifest

TABLE = "bundle_columns"
COLUMNS = [("role", "TEXT"), ("column", "TEXT"), ("delivered", "TEXT")]
# (role, manifest column role) -> the bundle column written from it, where the names differ.
RENAMED = {
    ("wwtw_permits", "wwtw_code"): "wwtw_id",
    ("wwtw_permits", "subcatchment"): "wwtw_subcatchment",
    ("occupancy_rates", "occupancy"): "occupancy_rate",
    ("occupancy_rates", "water"): "water_usage_l_per_person_day",
}


def column_rows(
    manifest: Manifest, read: Mapping[str, Mapping[str, str]] | None = None
) -> list[tuple[str, str, str]]:
    """(role, bundle column, delivered name) for every column the manifest names; ``read`` gives
    a role's columns as the file spelled them, where the reader knows (case, an alternative)."""
    read = read or {}
    return [
        (role, RENAMED.get((role, name), name), read.get(role, {}).get(name, delivered))
        for role, source in manifest.sources.items()
        for name, delivered in source.columns.items()
    ]
