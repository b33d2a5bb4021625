"""`nrf assess`: read, validate, assess and write a batch of sites, with progress and timings.

Everything knowable from the arguments is checked before the first site is read (output
type, output naming an input, an unwritable folder), because a large batch takes minutes.
The closing line gives the wall time of the whole run, stage by stage.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TextIO

from nrf.domain.rules import DEFAULT_RULE_SET, RULE_SETS
from nrf.entrypoints.exit_codes import EXIT_OK, EXIT_USAGE
from nrf.entrypoints.output_paths import output_argument


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
            parser.error(
                f"{option_string} may be given once (one output a run; run again for another)"
            )
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
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a date written YYYY-MM-DD")


def crs_argument(text: str) -> str:
    """``--crs``: EPSG:27700 or EPSG:4326 (any spelling PROJ knows), else a usage error."""
    from nrf.adapters.site_boundaries.boundary_crs import accepted_crs
    from nrf.domain.errors import InvalidInput

    try:
        return accepted_crs(text)
    except InvalidInput as exc:
        raise argparse.ArgumentTypeError(exc.problems[0].message) from None


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
        metavar="YYYY-MM-DD",
        help="price the levy as on this day, e.g. a later commencement (default: today, UTC)",
    )
    assess.add_argument(
        "--output",
        metavar="PATH",
        type=output_argument,
        action=GivenOnce,
        help="write .csv (the legacy 31 columns, plus a .levy.csv for Excel and a "
        ".provenance.json), .json, .geojson or .html (the report with maps) instead of "
        "printing a table",
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


def cmd_assess(args: argparse.Namespace) -> int:
    return run_assess(args)


def run_assess(
    args: argparse.Namespace,
    *,
    clock: Callable[[], float] = time.perf_counter,
    environ: Mapping[str, str] = os.environ,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> int:
    """The whole command; ``clock`` and the streams are injected for tests."""
    started = clock()
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    source = Path(args.input)
    if args.output is not None:
        from nrf.entrypoints.output_paths import check_writable, clashing_output

        clash = clashing_output(args.output, source)
        if clash is not None:
            print(
                f"nrf assess: error: --output would overwrite the input file {str(clash)!r}; "
                "choose another name",
                file=err,
            )
            return EXIT_USAGE
        check_writable(args.output)

    from nrf.adapters.outputs.result_files import render, write_all
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
    from nrf.entrypoints.assess_limits import assess_limits
    from nrf.entrypoints.container import build_container
    from nrf.entrypoints.progress import StageProgress
    from nrf.entrypoints.report_table import render_table

    progress = StageProgress(stream=err, clock=clock, tty=err.isatty())
    limits = assess_limits(args.max_sites, environ)
    container = build_container(
        args.reference_data or environ.get("NRF_REFERENCE_DATA"),
        assess_processes=args.processes,
    )
    # The API's use case, step by step: a broken bundle is refused before a large file is read.
    quote = container.get_quote(limits=limits)
    rules = quote.rules(args.rules)
    # "starting" is loading nrf's libraries (GDAL, GEOS, PROJ) and opening the bundle.
    marks = [("starting", started), ("reading", clock())]
    raw = read_boundary_file(
        source,
        limits,
        layer=args.layer,
        crs=args.crs,
        progress=progress.stage("reading", "features"),
    )
    if getattr(args, "columns", None):
        from nrf.domain.column_mapping import renamed

        raw = renamed(raw, args.columns)
    marks.append(("validating", clock()))
    developments = quote.validate(raw, progress=progress.stage("validating", "sites"))
    del raw  # a large file's raw features are not kept through the assessment
    marks.append(("assessing", clock()))
    run = quote.assess(
        developments,
        rules,
        getattr(args, "quote_date", None),
        progress=progress.stage("assessing", "sites"),
    )
    marks.append(("writing", clock()))
    from nrf.domain.output_stamp import OutputStamp

    # Every output says when and from which input it was made; a local run has no reference.
    stamp = OutputStamp(wall_clock(), source.name)
    if args.output is not None:
        files: Mapping[Path, str | Iterable[str]]
        if args.output.suffix.lower() == ".html":
            from nrf.adapters.outputs.html_report import report_files

            files = report_files(args.output, run, developments, container.boundary_data(), stamp)
        else:
            writing = progress.stage("writing", "records")
            files = render(args.output, run, developments, writing, stamp)
        for path in write_all(files):
            print(f"wrote {path}", file=err)
        if run.provenance.synthetic_data:
            print("note: results use SYNTHETIC demonstration reference data", file=err)
    else:
        if out is sys.stdout:
            # Redirected on Windows, stdout is the ANSI code page (cp1252): a site name
            # outside it must not crash the run at its last step.
            sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
        print(render_table(run, stamp), file=out)
    finished = clock()
    stages = ", ".join(
        f"{name} {end - begin:.1f} s"
        for (name, begin), (_, end) in zip(marks, [*marks[1:], ("", finished)], strict=True)
    )
    print(
        f"assessed {len(developments):,} sites in {finished - started:.1f} s "
        f"({len(run.sites):,} in scope, {len(run.out_of_scope):,} out of scope; {stages})",
        file=err,
    )
    return EXIT_OK
