"""Build a bundle from a Defra delivery: read, clean, stage, gate, then publish or discard.

All or nothing: the bundle is staged in a hidden file beside the target and moved into place
only if the quality gate passes; the report is written beside the target either way.
"""

from __future__ import annotations

import contextlib
import glob
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from pathlib import Path

from attrs import frozen

import nrf
from nrf.bundles import cleaning, source_reader
from nrf.bundles.coefficient_source import SourceUnreadable, open_coefficients
from nrf.bundles.delivered_columns import column_rows
from nrf.bundles.geopackage_writer import GeoPackageWriter
from nrf.bundles.levy_tables import DEFAULT_VAT_RATE, charges_table, index_table, settings_table
from nrf.bundles.manifest import CSV_SOURCES, Manifest, load_manifest
from nrf.bundles.output_errors import (
    OutputNotWritten,
    check_output_folder,
    publish,
    write_report,
)
from nrf.bundles.provenance import BundleInfoRow, source_files, write_provenance
from nrf.bundles.qc.gate import previous_counts, run_gate
from nrf.bundles.qc.report import QcReport
from nrf.bundles.schedule_csv import read_csv_rows
from nrf.bundles.staging import stage_coefficients, stage_small
from nrf.bundles.stale_staging import sweep_stale_staging
from nrf.bundles.vouch import record_checked_by_gate
from nrf.domain.levy_rounding import FOR_NEW_BUNDLES, LevyRounding

Progress = Callable[[str], Callable[[int, int], None]]
# Findings that mean the delivery could not even be read: nothing to stage or gate.
UNREADABLE = {
    "source_missing",
    "source_corrupt",
    "source_encoding",
    "source_format",
    "source_crs",
    "source_outside",
    "source_too_large",
    "no_default_occupancy",
}
SMALL_LAYERS = (
    "nn_catchments",
    "wwtw_catchments",
    "lpa_boundaries",
    "subcatchments",
    "edp_extents",
    "edp_boundaries",
    "excluded_areas",
)


@frozen(kw_only=True)
class BuildRequest:
    """What ``nrf bundle build`` was asked; ``created`` is the build time (injected)."""

    source_dir: Path
    output: Path
    version: str
    created: str
    levy_charges: Path | None = None  # else the manifest's (or the default) path in the delivery
    inflation_index: Path | None = None
    vat_rate: Decimal = DEFAULT_VAT_RATE
    levy_rounding: LevyRounding = FOR_NEW_BUNDLES
    default_occupancy: float | None = None
    default_water_usage: float | None = None
    previous: Path | None = None
    manifest: Path | None = None


@frozen
class BuildOutcome:
    report: QcReport
    written: bool
    unreadable: bool


def _default(
    request: BuildRequest, occupancy: float | None, water: float | None
) -> tuple[float, float] | None:
    occ = request.default_occupancy if request.default_occupancy is not None else occupancy
    wat = request.default_water_usage if request.default_water_usage is not None else water
    return (float(occ), float(wat)) if occ is not None and wat is not None else None


def _previous(path: Path, report: QcReport) -> dict[str, int] | None:
    """Row counts of ``--previous``; a missing or unreadable one is refused, never ignored."""
    if not path.is_file():
        report.add("source_missing", "previous", str(path), "--previous: no such bundle file")
        return None
    try:
        return previous_counts(path)
    except sqlite3.DatabaseError as exc:
        report.add("source_corrupt", "previous", str(path), f"--previous is no bundle ({exc})")
        return None


def _csv_paths(request: BuildRequest, manifest: Manifest) -> dict[str, Path]:
    """Each levy CSV: the command line's file, else the manifest's path inside the delivery."""
    given = {"levy_charges": request.levy_charges, "inflation_index": request.inflation_index}
    return {
        key: given[key] or source_reader.source_path(request.source_dir, manifest.sources[key])
        for key in CSV_SOURCES
    }


def _read_csv(
    key: str, paths: dict[str, Path], manifest: Manifest, report: QcReport
) -> Iterable[source_reader.Row]:
    path = paths[key]
    if not path.exists() and not path.is_symlink():
        report.add(
            "source_missing",
            key,
            str(path),
            f"no such file: name it with --{key.replace('_', '-')} FILE, or as "
            f"[sources.{key}] path in the manifest",
        )
        return []
    money = ("base_charge_per_unit",) if key == "levy_charges" else ()
    dates = ("edp_start_date", "charge_valid_from", "charge_valid_to") if money else ()
    columns = manifest.sources[key].columns
    rows = read_csv_rows(key, path, columns, report, money=money, dates=dates)
    return () if rows is None else rows


def _outside(request: BuildRequest, manifest: Manifest, report: QcReport) -> None:
    """Every manifest source that resolves (through symbolic links) outside the delivery."""
    root = request.source_dir.resolve()
    given = {"levy_charges": request.levy_charges, "inflation_index": request.inflation_index}
    for key, source in manifest.sources.items():
        if given.get(key) is not None:
            continue  # a file named on the command line is the operator's own choice
        path = source_reader.source_path(request.source_dir, source)
        # A shapefile's .dbf, .shx, .prj or .cpg is read with it: each must stay inside too.
        parts = sorted(path.parent.glob(f"{glob.escape(path.stem)}.*"))
        for item in [path] + (parts if path.suffix.casefold() == ".shp" else []):
            if (item.exists() or item.is_symlink()) and not item.resolve().is_relative_to(root):
                shown = source.path if item == path else f"{source.path} ({item.name})"
                report.add(
                    "source_outside",
                    key,
                    shown,
                    f"leads to {item.resolve()}, outside the delivery {root}: deliver the file "
                    "itself, or name it on the command line",
                )
                if item == path:
                    break  # its parts went with it: one finding says so


@contextlib.contextmanager
def _staged(request: BuildRequest) -> Iterator[GeoPackageWriter]:
    """The staging file, dropped on every way out but publishing (where it has moved into
    place, so the drop finds nothing); the target's disk or folder failing is
    OutputNotWritten, never a fault of the delivery."""
    try:
        writer = GeoPackageWriter(request.output, timestamp=request.created)
    except (OSError, sqlite3.Error) as exc:
        raise OutputNotWritten(request.output, exc) from None
    try:
        yield writer
    except (OSError, sqlite3.Error) as exc:
        raise OutputNotWritten(request.output, exc) from None
    finally:
        writer.abort()


def _write_provenance(
    writer: GeoPackageWriter,
    request: BuildRequest,
    manifest: Manifest,
    csv_paths: dict[str, Path],
    read: dict[str, dict[str, str]],
    report: QcReport,
) -> None:
    """The bundle's name, version, source files (also listed in the report) and the delivered
    name of each column (``read``: a layer's columns as its file spells them)."""
    extra = list(csv_paths.items())
    if request.manifest is not None:
        extra.append(("manifest", request.manifest))
    sources = source_files(request.source_dir, manifest, extra)
    report.figures["sources"] = list(dict.fromkeys(s.path for s in sources))
    info = BundleInfoRow(
        name=manifest.name,
        version=request.version,
        created=request.created,
        description=manifest.description,
        nrf_version=nrf.__version__,
    )
    write_provenance(writer, info, sources, column_rows(manifest, read))


# Long: the build's steps in order (read, clean, gate, write, vouch), with progress between.
def build_bundle(request: BuildRequest, progress: Progress | None = None) -> BuildOutcome:
    check_output_folder(request.output)
    for stale in sweep_stale_staging(request.output):
        print(f"removed {stale.name}, left by a build that was killed", file=sys.stderr)
    manifest = load_manifest(request.manifest)
    report = QcReport()
    root = request.source_dir
    _outside(request, manifest, report)
    if report.codes():
        write_report(report, request.output)
        return BuildOutcome(report, written=False, unreadable=True)
    small = {
        key: source_reader.read_vector(root, key, manifest.sources[key], report)
        for key in SMALL_LAYERS
    }
    permit_rows = source_reader.read_table(
        root, "wwtw_permits", manifest.sources["wwtw_permits"], report
    )
    rate_rows = source_reader.read_table(
        root, "occupancy_rates", manifest.sources["occupancy_rates"], report
    )
    for key, rows in (("wwtw_permits", permit_rows), ("occupancy_rates", rate_rows)):
        if rows == []:  # the cleaned table would still hold the default or nothing useful
            report.add("empty", key, "-", f"{manifest.sources[key].layer} has no rows")
    csv_paths = _csv_paths(request, manifest)
    levy = [
        charges_table(_read_csv("levy_charges", csv_paths, manifest, report)),
        index_table(_read_csv("inflation_index", csv_paths, manifest, report)),
        settings_table(request.vat_rate, request.levy_rounding),
    ]
    default = _default(request, manifest.default_occupancy, manifest.default_water_usage)
    permits = cleaning.clean_permits(permit_rows or [], manifest, report)
    rates = cleaning.clean_rates(rate_rows or [], manifest, default, report)
    coefficients = open_coefficients(root, manifest.sources["land_use_coefficients"], report)
    previous = _previous(request.previous, report) if request.previous else None
    if report.codes() & UNREADABLE or coefficients is None:
        if coefficients is not None:
            coefficients.close()
        write_report(report, request.output)
        return BuildOutcome(report, written=False, unreadable=True)
    refused: BuildOutcome | None = None
    with contextlib.closing(coefficients), _staged(request) as writer:
        for key, layer in small.items():
            if layer is not None:
                stage_small(writer, key, layer, report)
        for table in (permits, rates, *levy):
            writer.create_table(table.name, table.columns, table.rows)
        try:
            stage_coefficients(
                writer, coefficients, report, progress and progress("reading coefficients")
            )
        except SourceUnreadable as exc:
            report.add(exc.code, "land_use_coefficients", exc.key, exc.detail)
            refused = BuildOutcome(report, written=False, unreadable=True)
        else:
            coefficients.close()  # read in full: free it now, not after the gate
            read = {key: layer.names for key, layer in small.items() if layer is not None}
            read["land_use_coefficients"] = coefficients.names
            _write_provenance(writer, request, manifest, csv_paths, read, report)
            writer.flush()
            run_gate(
                writer.connection,
                report,
                previous=previous,
                progress=progress and progress("checking coefficients"),
            )
            if not report.passed:
                refused = BuildOutcome(report, written=False, unreadable=False)
            else:
                writer.connection.execute(
                    "UPDATE bundle_info SET qc_outcome = ?, qc_summary = ?",
                    (report.outcome, report.summary()),
                )
                publish(writer, report, request.output)
    if refused is not None:
        # Written once the staging file is gone: on a nearly full disk, its space is needed.
        write_report(report, request.output)
        return refused
    # The gate checked every geometry of every layer: readers may trust this exact file.
    # Best effort: without the record (a full disk) readers check the bundle themselves.
    record_checked_by_gate(request.output)
    return BuildOutcome(report, written=True, unreadable=False)
