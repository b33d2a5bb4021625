"""`nrf assess`'s options: each argument's type checked as argparse reads it (usage error, 2).

Everything knowable from the arguments alone is refused here, before the first site is read;
what the command then does with them is assess_command.py.
"""

from __future__ import annotations

import argparse
import os
from datetime import date

from nrf.domain.rules import DEFAULT_RULE_SET, RULE_SETS
from nrf.entrypoints.assess_command import cmd_assess
from nrf.entrypoints.output_paths import output_argument


def dwellings_argument(text: str) -> int:
    """``--dwellings N``: a whole number of dwellings, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


class GivenOnce(argparse.Action):
    """An option that may be given once: a second ``--output`` would silently win."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} may be given once")
        setattr(namespace, self.dest, values)


def columns_argument(text: str) -> dict[str, str]:
    """``--columns id=Site_Ref,dwellings=No_Dwellin``: nrf's column names to the file's."""
    from nrf.domain.column_mapping import parse_columns
    from nrf.domain.errors import InvalidInput

    try:
        return parse_columns(text)
    except InvalidInput as exc:
        raise argparse.ArgumentTypeError(exc.problems[0].message) from None


def quote_date_argument(text: str) -> date:
    """``--quote-date``: a calendar day written YYYY-MM-DD, else a usage error."""
    from nrf.domain.calendar_day import calendar_day

    day = calendar_day(text)
    if day is None:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a date written YYYY-MM-DD")
    return day


def crs_argument(text: str) -> str:
    """``--crs``: EPSG:27700 or EPSG:4326 (any spelling PROJ knows), else a usage error."""
    from nrf.adapters.site_boundaries.boundary_crs import accepted_crs
    from nrf.domain.errors import InvalidInput

    try:
        return accepted_crs(text)
    except InvalidInput as exc:
        raise argparse.ArgumentTypeError(exc.problems[0].message) from None


# Long: one add_argument per `nrf assess` option, with its help text.
def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    assess: argparse.ArgumentParser = sub.add_parser(
        "assess",
        help="assess the red-line boundaries in a file",
        description="Assess every red-line boundary in a file: nutrient impact and levy.",
    )
    assess.add_argument(
        "input", help="GeoJSON, shapefile (.shp, .zip or its folder), GeoPackage, KML or KMZ"
    )
    assess.add_argument(
        "--reference-data",
        metavar="BUNDLE",
        help="reference bundle (.gpkg); default $NRF_REFERENCE_DATA or the bundled synthetic one",
    )
    assess.add_argument(
        "--processes",
        type=positive_int,
        default=min(8, os.cpu_count() or 1),
        help="most processes a batch of 16+ sites is split over (default: the CPUs, at most "
        "8); only CPUs the load average shows idle are used, so a busy machine runs it in one",
    )
    assess.add_argument(
        "--rules",
        choices=sorted(RULE_SETS),
        default=DEFAULT_RULE_SET,
        help=f"rule set (default {DEFAULT_RULE_SET})",
    )
    assess.add_argument(
        "--quote-date",
        type=quote_date_argument,
        action=GivenOnce,
        metavar="YYYY-MM-DD",
        help="price the levy as on this day, e.g. a later commencement (default: today, UTC)",
    )
    assess.add_argument(
        "--output",
        metavar="PATH",
        type=output_argument,
        action=GivenOnce,
        help="write .csv (the legacy 31 columns, plus a .levy.csv for Excel and a "
        ".provenance.json), .json, .geojson or .html (the report with maps, up to 5,000 sites) "
        "instead of printing a table",
    )
    assess.add_argument(
        "--layer",
        metavar="NAME",
        help="the layer of a GeoPackage (or shapefile of a folder, or folder of a KML) holding "
        "several",
    )
    assess.add_argument(
        "--columns",
        type=columns_argument,
        metavar="MAP",
        help="your file's column names for nrf's, e.g. id=Site_Ref,dwellings=No_Dwellin (id, "
        "name, dwelling_category, source, dwellings); without them id is the feature's "
        "position, dwelling_category housing, name and source blank",
    )
    assess.add_argument(
        "--reference",
        metavar="TEXT",
        help="the quote reference to print in every output (the report's title, the levy "
        "table's Quote_Reference, the JSON's and GeoJSON's stamp); default none",
    )
    assess.add_argument(
        "--dwellings",
        type=dwellings_argument,
        metavar="N",
        help="the number of dwellings of a file of one site that has no dwellings column (a "
        "polygon drawn in Google Earth); it beats the file's own value. A file of several "
        "sites needs a column (name yours with --columns dwellings=COLUMN)",
    )
    assess.add_argument(
        "--crs",
        type=crs_argument,
        metavar="CRS",
        help="the CRS of a file that does not state one, e.g. EPSG:27700 for a .shp "
        "without .prj (EPSG:27700 or EPSG:4326)",
    )
    assess.add_argument(
        "--max-sites",
        type=positive_int,
        metavar="N",
        help="refuse a file of more than N sites (default $NRF_MAX_SITES_PER_JOB or 10,000)",
    )
    assess.set_defaults(func=cmd_assess)
    return assess
