"""Every quality-gate rule code, its severity and what it means: one list, used everywhere."""

from __future__ import annotations

ERROR, WARNING, CLEANED = "error", "warning", "cleaned"

# code -> (severity, meaning). Codes are stable: scripts and reviewers key on them.
RULES: dict[str, tuple[str, str]] = {
    "source_missing": (ERROR, "a source file, layer, table or column is not in the delivery"),
    "source_corrupt": (
        ERROR,
        "a source file is truncated, corrupt or not what its name says (an HTML page as .gpkg)",
    ),
    "source_encoding": (ERROR, "a source's text is not UTF-8 (or holds NUL bytes)"),
    "source_format": (
        ERROR,
        "a levy CSV is not one comma-separated header of distinct names with rows to match",
    ),
    "source_outside": (
        ERROR,
        "a manifest path or a delivered symbolic link leads outside the delivery folder",
    ),
    "source_too_large": (ERROR, "a levy CSV is larger than any delivery could need (2 GiB)"),
    "source_crs": (ERROR, "a layer has no CRS (and the manifest gives none) or is not EPSG:27700"),
    "schema": (
        ERROR,
        "a bundle lacks a layer, table or column the reader needs, or holds one as a view",
    ),
    "empty": (ERROR, "a layer or table has no rows"),
    "shrunk": (ERROR, "a layer or table has fewer than 90 % of the rows of --previous"),
    "geometry_missing": (ERROR, "a feature has no geometry (NULL or empty)"),
    "geometry_type": (ERROR, "a feature is not a polygon or multipolygon"),
    "geometry_invalid": (ERROR, "a feature's geometry is invalid (GEOS is_valid)"),
    "outside_gb": (ERROR, "a feature lies outside Great Britain's EPSG:27700 extent"),
    "lonlat_coordinates": (
        ERROR,
        "a feature's coordinates look like longitude/latitude degrees, not EPSG:27700 metres",
    ),
    "key_missing": (ERROR, "a feature or row has no usable key (name, id, cromeid, code)"),
    "key_duplicate": (ERROR, "a key that must be unique is repeated"),
    "key_conflict": (ERROR, "one NN catchment name has several ids, or one id several names"),
    "works_code_conflict": (
        ERROR,
        "a works code has rows that disagree (manifest duplicate_works = 'first_wins' keeps "
        "the first, as Defra's loader did)",
    ),
    "fallback_missing": (ERROR, "the package-plant fallback works 141 has no permit row"),
    "value_invalid": (
        ERROR,
        "a concentration, rate or VAT rate is not a usable number, or levy_rounding names no "
        "rule (round_total, per_unit) or is stated twice",
    ),
    "no_default_occupancy": (ERROR, "no default occupancy rate and water usage were given"),
    "coefficient_range": (ERROR, "a coefficient is not finite, or N outside [0, 50] or P [0, 5]"),
    "ref_rates_catchment": (ERROR, "a rates_lookup catchment row names no NN catchment"),
    "ref_works": (ERROR, "a works code in WwTw_lookup is no works polygon id (nor 141)"),
    "edp_id_conflict": (
        ERROR,
        "EDP polygons of one EDP_Name carry different EDP_Ids, or one EDP_Id several names",
    ),
    "charge_invalid": (
        ERROR,
        "a levy_charges row has an edp_id that is no whole number, a date not YYYY-MM-DD, or a "
        "base_charge_per_unit that is not a decimal above 0 and at most 1,000,000 with at most 4 "
        "places",
    ),
    "charge_window_reversed": (ERROR, "a charge's charge_valid_to is before its charge_valid_from"),
    "charge_overlap": (ERROR, "two charge windows of one EDP share a day"),
    "ref_charge_edp": (
        ERROR,
        "a charge names an edp_id the EDP layer does not hold, or holds under another name",
    ),
    "index_invalid": (
        ERROR,
        "a levy_inflation_index row's charging_year is no whole number, or its cil_index or "
        "index_factor no decimal above 0 (index_factor with at most 4 places)",
    ),
    "index_year_duplicate": (ERROR, "a charging_year is listed twice in the inflation index"),
    "overlap": (ERROR, "two coefficient polygons overlap (uplift would be counted twice)"),
    "coverage_gap": (
        ERROR,
        "coefficient polygons cover less than all of an NN catchment: a site in the gap would "
        "lose its land-use figures",
    ),
    "no_source_key": (WARNING, "the coefficient layer has no cromeid column to trace rows by"),
    "works_without_permit": (
        WARNING,
        "a works polygon's id has no permit row (its sites get no wastewater load)",
    ),
    "key_repeated": (WARNING, "one NN catchment is made of several polygons"),
    "index_year_missing": (
        WARNING,
        "a charge's edp_start_date year is not in the inflation index: later years' quotes "
        "are refused",
    ),
    "charge_missing": (
        WARNING,
        "an EDP of the EDP layer has no charge row: every levy there is refused",
    ),
    "charge_not_whole_pounds": (
        WARNING,
        "a base_charge_per_unit is not whole pounds: Defra's newest calculator refuses it; nrf "
        "prices it as written, rounded by the bundle's levy_rounding rule",
    ),
    "not_run": (
        WARNING,
        "a gate rule needs a layer the build could not read, so it was not run (build only)",
    ),
    "cleaned": (CLEANED, "a dirty source value was cleaned by a documented rule"),
}


def severity(code: str) -> str:
    return RULES[code][0]
