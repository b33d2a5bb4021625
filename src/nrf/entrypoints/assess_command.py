"""`nrf assess`: read, validate, assess and write a batch of sites, with progress and timings.

Everything knowable from the arguments is checked before the first site is read (output
type, output naming an input, an unwritable folder), because a large batch takes minutes.
The closing line gives the wall time of the whole run, stage by stage.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import attrs

from nrf.domain.counts import counted
from nrf.entrypoints.exit_codes import EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from nrf.domain.validation import RawFeature

# A report page of more sites than this is refused: it is built whole in memory, and a page
# of 5,000 sites (~15 MB of HTML) is already more than a browser shows usefully.
HTML_MAX_SITES = 5_000


def several_sites_refusal(count: int) -> str:
    """--dwellings is one site's count: a file of several needs each site's own."""
    return (
        f"nrf assess: error: --dwellings gives the dwellings of a file of one site; this file "
        f"has {count:,} sites, so each needs its own: give the file a dwellings column, or "
        "name the column that holds them with --columns dwellings=COLUMN"
    )


def with_fields(feature: RawFeature, given: Mapping[str, object]) -> RawFeature:
    """The feature with the values given on the command line over its own properties."""
    if not given:
        return feature
    return attrs.evolve(feature, properties={**feature.properties, **given})


def html_too_large(count: int) -> str:
    """The refusal of a report page for a file too large to read as one page."""
    return (
        f"nrf assess: error: the file has {count:,} sites; an .html report holds at most "
        f"{HTML_MAX_SITES:,} (it is one page, made in memory); write .csv, .json or .geojson"
    )


def _spool_dir(args: argparse.Namespace) -> str | None:
    """Spool results beside the output (a national run's spool is GBs; /tmp may be memory)."""
    if args.output is None:
        return None
    folder = args.output.absolute().parent
    while not folder.is_dir():  # the output's folder is made when it is written
        folder = folder.parent
    return str(folder)


def cmd_assess(args: argparse.Namespace) -> int:
    return run_assess(args)


# Long: the command's phases, timings and exit codes; to move to the service layer (issue 29).
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

    from nrf.adapters.environment.assess_limits import assess_limits
    from nrf.adapters.outputs.result_files import files_for, write_all
    from nrf.adapters.outputs.spooled_run import spool_developments, spool_run
    from nrf.adapters.site_boundaries.boundary_stream import open_boundary_file
    from nrf.adapters.terminal.progress import StageProgress
    from nrf.adapters.terminal.report_table import table_lines
    from nrf.domain.column_mapping import mapped_columns, renamed_feature, renamed_keys
    from nrf.domain.rules import rule_set_named
    from nrf.domain.set_aside_columns import set_aside_warnings
    from nrf.domain.validation import check_count, file_columns, key_sets, validated
    from nrf.entrypoints.roots.core import Core, build

    progress = StageProgress(stream=err, clock=clock, tty=err.isatty())
    limits = assess_limits(args.max_sites, environ)
    rules = rule_set_named(args.rules)
    html = args.output is not None and args.output.suffix.lower() == ".html"
    # "starting" is loading nrf's libraries (GDAL, GEOS, PROJ): seconds on a cold disk.
    marks = [("starting", started), ("reading", clock())]
    with contextlib.ExitStack() as stack:
        # The file is read twice and never held: its columns, then every problem, each site
        # checked being spooled to disk (the assessment reads the spool, not the file again).
        boundaries = stack.enter_context(
            open_boundary_file(source, limits, layer=args.layer, crs=args.crs)
        )
        count = boundaries.count
        check_count(count, limits)
        dwellings = getattr(args, "dwellings", None)
        if dwellings is not None and count != 1:
            print(several_sites_refusal(count), file=err)
            return EXIT_USAGE
        if html and count > HTML_MAX_SITES:
            print(html_too_large(count), file=err)
            return EXIT_USAGE
        keys = key_sets(
            boundaries.features(geometry=False, progress=progress.stage("reading", "features"))
        )
        # ``--columns``: the file's columns under nrf's names, checked against every name.
        names = file_columns(keys).names
        found = mapped_columns(names, getattr(args, "columns", None) or {})
        told = set_aside_warnings(names, found)  # a column of the file the mapping passes over
        given = {} if dwellings is None else {"dwellings": dwellings}
        columns = file_columns((*renamed_keys(k, found), *given) for k in keys)
        del keys
        marks.append(("validating", clock()))
        folder = Path(
            stack.enter_context(
                tempfile.TemporaryDirectory(prefix=".nrf-assess-", dir=_spool_dir(args))
            )
        )
        checking = validated(
            (with_fields(renamed_feature(f, found), given) for f in boundaries.features()),
            count,
            columns,
            limits,
            progress.stage("validating", "sites"),
        )
        checked, developments = spool_developments(checking, folder)
        # Every problem is raised together at the end; ids given to several sites are told.
        from nrf.domain.repeated_ids import repeated_ids_warnings

        warnings = (*told, *repeated_ids_warnings(site.id for site in checked))
        for warning in warnings:
            print(f"warning: {warning.message}", file=err)
        marks.append(("assessing", clock()))
        container = build(
            Core,
            reference_data=args.reference_data or environ.get("NRF_REFERENCE_DATA"),
            assess_processes=args.processes,
        )
        from nrf.domain.charging import utc_day

        quote_date = getattr(args, "quote_date", None) or utc_day(container.clock().now())
        reference = (getattr(args, "reference", None) or "").strip() or None
        assess = container.assess_developments()
        assessing = progress.stage("assessing", "sites")
        from nrf.domain.output_stamp import OutputStamp

        files: Mapping[Path, str | Iterable[str]] = {}
        if html:
            from nrf.adapters.outputs.html_report import report_files

            kept = list(developments)  # at most HTML_MAX_SITES: the report is one page
            run = assess(kept, rules, quote_date, progress=assessing)
            run = attrs.evolve(run, warnings=(*told, *run.warnings))
            marks.append(("writing", clock()))
            # Every output says when and from which input it was made; a local run has no
            # reference.
            stamp = OutputStamp(
                made_at=wall_clock(),
                input_name=source.name,
                reference=reference,
                quote_date=quote_date,
            )
            files = report_files(args.output, run, kept, container.boundary_data(), stamp)
        else:
            outcomes = assess.outcomes(developments, rules, quote_date, count, assessing)
            run = spool_run(outcomes, assess.provenance(rules), folder, warnings)
            marks.append(("writing", clock()))
            stamp = OutputStamp(
                made_at=wall_clock(),
                input_name=source.name,
                reference=reference,
                quote_date=quote_date,
            )
            if args.output is not None:
                writing = progress.stage("writing", "records")
                files = files_for(args.output, run, developments, writing, stamp)
        if args.output is not None:
            for path in write_all(files):
                print(f"wrote {path}", file=err)
            if run.provenance.synthetic_data:
                print("note: results use SYNTHETIC demonstration reference data", file=err)
        else:
            if out is sys.stdout:
                # Redirected on Windows, stdout is the ANSI code page (cp1252): a site name
                # outside it must not crash the run at its last step.
                sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
            for line in table_lines(run, stamp):
                print(line, file=out)
    finished = clock()
    stages = ", ".join(
        f"{name} {end - begin:.1f} s"
        for (name, begin), (_, end) in zip(marks, [*marks[1:], ("", finished)], strict=True)
    )
    print(
        f"assessed {counted(count, 'site')} in {finished - started:.1f} s "
        f"({len(run.sites):,} in scope, {len(run.out_of_scope):,} out of scope; {stages})",
        file=err,
    )
    return EXIT_OK
