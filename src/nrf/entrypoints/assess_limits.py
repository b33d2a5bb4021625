"""The input ceilings of `nrf assess`: 10,000 sites unless raised by --max-sites or the env.

The worker reads ``NRF_MAX_SITES_PER_JOB`` (and the other ``NRF_MAX_*`` ceilings); the CLI
honours the same variables, parsed by the same rules, and ``--max-sites`` overrides the
site count. Raising the site count alone also raises the whole-file ceilings (bytes,
total vertices) in proportion, so a 50,000-site file of ordinary sites is not refused for
its size after being allowed its count; a ceiling set explicitly is kept as set.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from nrf.domain.validation import DEFAULT_LIMITS, InputLimits
from nrf.entrypoints.settings import read_variables

# environment variable -> (its WorkerSettings field, the InputLimits field it sets)
VARIABLES = {
    "NRF_MAX_SITES_PER_JOB": ("max_sites_per_job", "max_features"),
    "NRF_MAX_FILE_BYTES": ("max_file_bytes", "max_file_bytes"),
    "NRF_MAX_VERTICES_PER_SITE": ("max_vertices_per_site", "max_vertices_per_feature"),
    "NRF_MAX_TOTAL_VERTICES": ("max_total_vertices", "max_total_vertices"),
    "NRF_MAX_SITE_AREA_HA": ("max_site_area_ha", "max_site_area_ha"),
    "NRF_MAX_DECOMPRESSED_BYTES": ("max_decompressed_bytes", "max_decompressed_bytes"),
}
_SCALED = ("max_file_bytes", "max_total_vertices", "max_decompressed_bytes")


def assess_limits(max_sites: int | None, environ: Mapping[str, str]) -> InputLimits:
    """The limits for one run; a bad variable raises ConfigError naming it."""
    parsed = read_variables(environ, list(VARIABLES))
    values = {limit: parsed[setting] for setting, limit in VARIABLES.values() if setting in parsed}
    if max_sites is not None:
        values["max_features"] = max_sites
    sites = values.get("max_features", DEFAULT_LIMITS.max_features)
    scale = max(1.0, sites / DEFAULT_LIMITS.max_features)
    for name in _SCALED:
        values.setdefault(name, int(getattr(DEFAULT_LIMITS, name) * scale))
    return attrs.evolve(DEFAULT_LIMITS, **values)
