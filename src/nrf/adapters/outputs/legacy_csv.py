"""The legacy 31-column IAT table that planning teams already use."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from nrf.adapters.outputs.csv_lines import csv_lines
from nrf.adapters.outputs.csv_safety import neutralise
from nrf.adapters.outputs.spooled_run import in_order
from nrf.domain.results import SiteAssessment

COLUMNS = (
    "RLB_ID",
    "id",
    "Name",
    "Dwel_Cat",
    "Source",
    "Dwellings",
    "Dev_Area_Ha",
    "AreaInNNCatchment",
    "NN_Catchment",
    "Dev_SubCatchment",
    "Majority_LPA",
    "Majority_WwTw_ID",
    "WwTW_name",
    "WwTw_SubCatchment",
    "N_LU_Uplift",
    "P_LU_Uplift",
    "N_LU_postSuDS",
    "P_LU_postSuDS",
    "Occ_Rate",
    "Water_Usage_L_Day",
    "Litres_used",
    "Nitrogen_2025_2030",
    "Nitrogen_2030_onwards",
    "Phosphorus_2025_2030",
    "Phosphorus_2030_onwards",
    "N_WwTW_Temp",
    "P_WwTW_Temp",
    "N_WwTW_Perm",
    "P_WwTW_Perm",
    "N_Total",
    "P_Total",
)


def plain(value: object) -> str:
    """A cell: empty for None, numbers in positional notation (never 1e-05), text neutralised
    against formula injection (csv_safety; ordinary text is unchanged, numbers never touched)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite number {value!r} in a result")
        text = repr(value)
        if "e" in text or "E" in text:
            text = np.format_float_positional(value, trim="-")
        return "0.0" if text == "-0.0" else text
    return str(value)


def site_row(site: SiteAssessment) -> list[str]:
    s = site.site
    values: list[object] = [
        s.rlb_id,
        s.id,
        s.name,
        s.dwelling_category,
        s.source,
        s.dwellings,
        site.dev_area_ha,
        site.area_in_nn_catchment_ha,
        "; ".join(site.nn_catchments) if site.nn_catchments else None,
        site.dev_subcatchment,
        site.majority_lpa,
        site.majority_wwtw_id,
        site.wwtw_name,
        site.wwtw_subcatchment,
        site.n_lu_uplift,
        site.p_lu_uplift,
        site.n_lu_post_suds,
        site.p_lu_post_suds,
        site.occupancy_rate,
        site.water_usage_l_per_person_day,
        site.litres_used,
        site.n_conc_2025_2030,
        site.n_conc_2030_on,
        site.p_conc_2025_2030,
        site.p_conc_2030_on,
        site.n_wwtw_temp,
        site.p_wwtw_temp,
        site.n_wwtw_perm,
        site.p_wwtw_perm,
        site.n_total,
        site.p_total,
    ]
    return [plain(v) for v in values]


def rows(sites: Iterable[SiteAssessment]) -> Iterator[Sequence[str]]:
    """The header, then one row per in-scope site in input order, each made when asked for."""
    yield COLUMNS
    for site in in_order(sites):
        yield site_row(site)


def render(sites: Sequence[SiteAssessment]) -> str:
    """The CSV text; out-of-scope sites are not in this table (see the JSON output)."""
    return "".join(csv_lines(rows(sites), "\n"))
