"""`nrf bundle build | check | diff`: thin command-line hooks over nrf.bundles."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from nrf.domain.errors import NrfError
from nrf.domain.levy_rounding import LevyRounding, levy_rounding_named
from nrf.domain.rules import DEFAULT_RULE_SET, RULE_SETS
from nrf.entrypoints.exit_codes import (
    EXIT_CANNOT_WRITE,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_QC_FAILED,
    EXIT_TERMINATED,
    EXIT_UNREADABLE_SOURCE,
)


def _vat_rate(text: str) -> Decimal:
    """A fraction in [0, 1): 20 %% is 0.20, and "20" is refused rather than read as 2,000 %%."""
    try:
        rate = Decimal(text.strip())
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; write 0.20 for 20%") from None
    if not rate.is_finite() or not 0 <= rate < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in [0, 1): write 0.20")
    return rate


def _levy_rounding(text: str) -> LevyRounding:
    try:
        return levy_rounding_named(text.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _progress(label: str) -> Callable[[int, int], None]:
    from nrf.bundles.progress import rate_printer

    return rate_printer(label)


def cmd_build(args: argparse.Namespace) -> int:
    from nrf.bundles.build import BuildRequest, build_bundle
    from nrf.bundles.output_errors import OutputNotWritten
    from nrf.entrypoints.termination import Terminated, sigterm_raises

    request = BuildRequest(
        source_dir=Path(args.source_dir),
        output=Path(args.output),
        version=args.version,
        levy_charges=Path(args.levy_charges) if args.levy_charges else None,
        inflation_index=Path(args.inflation_index) if args.inflation_index else None,
        **({"vat_rate": args.vat_rate} if args.vat_rate is not None else {}),
        **({"levy_rounding": args.levy_rounding} if args.levy_rounding is not None else {}),
        created=_now(),
        default_occupancy=args.default_occupancy,
        default_water_usage=args.default_water_usage,
        previous=Path(args.previous) if args.previous else None,
        manifest=Path(args.manifest) if args.manifest else None,
    )
    try:
        with sigterm_raises():
            outcome = build_bundle(request, progress=_progress)
    except OutputNotWritten as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_CANNOT_WRITE
    except NrfError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_ERROR if exc.code == "gate_worker_died" else EXIT_UNREADABLE_SOURCE
    except Terminated:  # Ctrl-C goes on to main's handler: exit 130, said the same way
        print("stopped by SIGTERM; nothing was written", file=sys.stderr)
        return EXIT_TERMINATED
    report = outcome.report
    _print_errors(report)
    if report.figures.get("unread"):
        print(report.unread_line(), file=sys.stderr)
    print(report.summary(), file=sys.stderr)
    if outcome.written:
        print(
            f"wrote {request.output} (report {request.output.with_suffix('.qc.md')})",
            file=sys.stderr,
        )
        return EXIT_OK
    print(f"nothing written; see {request.output.with_suffix('.qc.md')}", file=sys.stderr)
    return EXIT_UNREADABLE_SOURCE if outcome.unreadable else EXIT_QC_FAILED


def _print_errors(report: Any, limit: int = 30) -> None:
    """The first errors, then the first warnings, in the report's own words."""
    for level in ("error", "warning"):
        found = [f for f in report.findings if f.severity == level]
        for f in found[:limit]:
            print(f"  {level} {f.code} {f.layer} [{f.key}]: {f.detail}", file=sys.stderr)
        if report.count(level) > limit:
            more = report.count(level) - limit
            print(f"  … {more:,} more {level}s in the report", file=sys.stderr)


def cmd_check(args: argparse.Namespace) -> int:
    from nrf.bundles.check import check_bundle

    report = check_bundle(
        Path(args.bundle),
        previous=Path(args.previous) if args.previous else None,
        progress=_progress("checking coefficients"),
    )
    _print_errors(report)
    if "levy_rounding" in report.figures:
        print(f"levy rounding: {report.figures['levy_rounding']}", file=sys.stderr)
    print(report.summary(), file=sys.stderr)
    return EXIT_OK if report.passed else EXIT_QC_FAILED


def cmd_diff(args: argparse.Namespace) -> int:
    import attrs

    from nrf.adapters.boundary_data.packaged import bundled_samples
    from nrf.adapters.environment.assess_limits import assess_limits
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
    from nrf.bundles.diff import diff_bundles
    from nrf.bundles.diff_report import render_diff
    from nrf.domain.rules import rule_set_named
    from nrf.domain.validation import validate_features

    limits = assess_limits(None, os.environ)  # the NRF_MAX_* limits `nrf assess` honours
    files = [Path(f) for f in args.sites] or [
        bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp",
        bundled_samples() / "BnW_small_under_1_hectare" / "BnW_small_under_1_hectare.shp",
    ]
    developments: list[Any] = []
    for file in files:
        for dev in validate_features(read_boundary_file(file, limits), limits):
            n = len(developments) + 1
            developments.append(attrs.evolve(dev, rlb_id=n, id=f"{file.stem}:{dev.id}"))
    doc = diff_bundles(Path(args.old), Path(args.new), developments, rule_set_named(args.rules))
    print(json.dumps(doc, indent=2) if args.json else render_diff(doc), end="")
    return EXIT_OK


# Long: one add_argument per `nrf bundle` option, with its help text.
def register(bundle_sub: Any) -> None:
    """Add build, check and diff under ``nrf bundle``."""
    fmt = argparse.RawDescriptionHelpFormatter
    build = bundle_sub.add_parser(
        "build",
        help="build a bundle from Defra's iat_input/ delivery, behind the quality gate",
        formatter_class=fmt,
    )
    build.add_argument("source_dir", help="the iat_input/ folder as Defra ships it")
    build.add_argument("--output", required=True, metavar="BUNDLE.gpkg")
    build.add_argument("--version", required=True, help="the bundle version, e.g. 2026.11.1")
    build.add_argument(
        "--levy-charges",
        metavar="FILE.csv",
        help="Defra's charging schedule: edp_id,edp_name,edp_start_date,charge_valid_from,"
        "charge_valid_to,base_charge_per_unit (default: the manifest's levy_charges path, "
        "levy_charges.csv in the delivery)",
    )
    build.add_argument(
        "--inflation-index",
        metavar="FILE.csv",
        help="the RICS CIL index: charging_year,cil_index,index_factor (default: the "
        "manifest's inflation_index path, inflation_index.csv in the delivery)",
    )
    build.add_argument(
        "--vat-rate",
        type=_vat_rate,
        metavar="RATE",
        help="VAT as a fraction, shown on quotes for people (default 0.20)",
    )
    build.add_argument(
        "--levy-rounding",
        type=_levy_rounding,
        metavar="RULE",
        help="where the levy is rounded to the penny: round_total (the whole sum once, "
        "Defra's newest; the default) or per_unit (each unit's charge first, the older rule)",
    )
    build.add_argument("--default-occupancy", type=float, metavar="R", help="e.g. 2.4")
    build.add_argument("--default-water-usage", type=float, metavar="L", help="e.g. 120")
    build.add_argument("--previous", metavar="OLD.gpkg", help="refuse shrinking below 90 %% of it")
    build.add_argument("--manifest", metavar="SOURCES.toml", help="override paths, layers, columns")
    build.set_defaults(func=cmd_build)
    check = bundle_sub.add_parser(
        "check", help="re-run the quality gate on a bundle", formatter_class=fmt
    )
    check.add_argument("bundle")
    check.add_argument("--previous", metavar="OLD.gpkg")
    check.set_defaults(func=cmd_check)
    diff = bundle_sub.add_parser("diff", help="what changed between two bundles, and whose quotes")
    diff.add_argument("old")
    diff.add_argument("new")
    diff.add_argument(
        "--sites",
        action="append",
        default=[],
        metavar="FILE",
        help="sites to re-assess (repeatable); default the bundled samples",
    )
    diff.add_argument("--rules", choices=sorted(RULE_SETS), default=DEFAULT_RULE_SET)
    diff.add_argument("--json", action="store_true", help="print the diff as JSON")
    diff.set_defaults(func=cmd_diff)
