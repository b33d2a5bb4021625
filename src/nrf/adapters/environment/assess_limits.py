"""The input ceilings: the worker's from its settings; `nrf assess`'s also from --max-sites.

The worker reads ``NRF_MAX_SITES_PER_JOB`` (and the other ``NRF_MAX_*`` ceilings); the CLI
honours the same variables, parsed by the same rules, and ``--max-sites`` overrides the
site count. Raising the site count alone also raises the whole-file ceilings (bytes,
total vertices) in proportion, so a 50,000-site file of ordinary sites is not refused for
its size after being allowed its count; a ceiling set explicitly is kept as set.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from nrf.adapters.environment.settings import WorkerSettings, read_variables, variables_of
from nrf.domain.validation import DEFAULT_LIMITS, InputLimits

# The worker's name of each ceiling -> InputLimits' (a site is a feature once read): the one
# place the two vocabularies meet, for the roots and for `nrf assess` alike.
LIMIT_FIELDS = {
    "max_file_bytes": "max_file_bytes",
    "max_sites_per_job": "max_features",
    "max_vertices_per_site": "max_vertices_per_feature",
    "max_total_vertices": "max_total_vertices",
    "max_site_area_ha": "max_site_area_ha",
    "max_decompressed_bytes": "max_decompressed_bytes",
    "max_read_seconds": "max_read_seconds",
    "max_read_memory_bytes": "max_read_memory_bytes",
}
VARIABLES = variables_of(list(LIMIT_FIELDS))
_SCALED = (
    "max_file_bytes",
    "max_total_vertices",
    "max_decompressed_bytes",
    "max_read_memory_bytes",
)


def input_limits(settings: WorkerSettings) -> InputLimits:
    """The worker's configured ceilings as InputLimits (the core root's ``limits``)."""
    values = {limit: getattr(settings, setting) for setting, limit in LIMIT_FIELDS.items()}
    return attrs.evolve(DEFAULT_LIMITS, **values)


def assess_limits(max_sites: int | None, environ: Mapping[str, str]) -> InputLimits:
    """The limits for one run; a bad variable raises ConfigError naming it."""
    parsed = read_variables(environ, VARIABLES)
    values = {LIMIT_FIELDS[setting]: value for setting, value in parsed.items()}
    if max_sites is not None:
        values["max_features"] = max_sites
    sites = values.get("max_features", DEFAULT_LIMITS.max_features)
    scale = max(1.0, sites / DEFAULT_LIMITS.max_features)
    for name in _SCALED:
        values.setdefault(name, int(getattr(DEFAULT_LIMITS, name) * scale))
    return attrs.evolve(DEFAULT_LIMITS, **values)
