"""Which gate rules need which layers, so a rule over a layer the build could not read is listed.

A build whose delivery has a read problem still gates what it read, so one run names every
problem; a rule that needs an unread layer would only echo the read problem (every permit
"names no works" when the works were not read), so it is not run, and the report says so
(``not_run``: "not run: needs wwtw_catchments") rather than leaving a silent gap.
"""

from __future__ import annotations

from collections.abc import Collection

from nrf.bundles.qc.report import QcReport

# step -> (the layer its findings are about, every layer it reads)
STEPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "nn_catchments rules": ("nn_catchments", ("nn_catchments",)),
    "wwtw_catchments rules": ("wwtw_catchments", ("wwtw_catchments",)),
    "lpa_boundaries rules": ("lpa_boundaries", ("lpa_boundaries",)),
    "subcatchments rules": ("subcatchments", ("subcatchments",)),
    "permit rules": ("wwtw_permits", ("wwtw_permits", "wwtw_catchments")),
    "rates rules": ("occupancy_rates", ("occupancy_rates", "nn_catchments")),
    "EDP rules": ("edp_boundaries", ("edp_boundaries",)),
    "excluded area rules": ("excluded_areas", ("excluded_areas",)),
    "inflation index rules": ("levy_inflation_index", ("levy_inflation_index",)),
    "charge rules": ("levy_charges", ("levy_charges", "edp_boundaries", "levy_inflation_index")),
    "coefficient value rules": ("land_use_coefficients", ("land_use_coefficients",)),
    "coefficient geometry, overlap and coverage rules": (
        "land_use_coefficients",
        ("land_use_coefficients", "nn_catchments"),
    ),
}


def runnable(step: str, unread: Collection[str], report: QcReport) -> bool:
    """Whether ``step`` can run; if not, a ``not_run`` finding names the unread layers."""
    subject, needs = STEPS[step]
    missing = [layer for layer in needs if layer in unread]
    if missing:
        report.add("not_run", subject, step, f"not run: needs {', '.join(missing)} (not read)")
    return not missing
