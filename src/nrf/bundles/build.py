"""Build a bundle from a Defra delivery: read, clean, stage, gate, then publish or discard.

All or nothing: the bundle is staged in a hidden file beside the target and moved into place
only if nothing could not be read and the quality gate passes; the report is written beside
the target either way. One run names every problem: a source that cannot be read is staged
empty and named as unread, and the gate still judges the rest (its rules that need an unread
layer listed as not run), so a data manager mends the whole delivery at once.
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

from attrs import evolve, frozen

import nrf
from nrf.bundles.coefficient_source import SourceUnreadable
from nrf.bundles.delivered_columns import column_rows
from nrf.bundles.delivery_read import (
    COEFFICIENTS,
    UNREADABLE,
    Delivery,
    bundle_names,
    outside,
    read_delivery,
)
from nrf.bundles.geopackage_writer import GeoPackageWriter
from nrf.bundles.levy_tables import DEFAULT_VAT_RATE, settings_table
from nrf.bundles.manifest import Manifest, load_manifest
from nrf.bundles.output_errors import (
    OutputNotWritten,
    check_output_folder,
    publish,
    write_report,
)
from nrf.bundles.provenance import BundleInfoRow, source_files, write_provenance
from nrf.bundles.qc.gate import previous_counts, run_gate
from nrf.bundles.qc.report import QcReport
from nrf.bundles.staging import (
    create_coefficient_layer,
    create_small_layer,
    stage_coefficients,
    stage_small,
)
from nrf.bundles.stale_staging import sweep_stale_staging
from nrf.bundles.vouch import record_checked_by_gate
from nrf.domain.levy_rounding import FOR_NEW_BUNDLES, LevyRounding

Progress = Callable[[str], Callable[[int, int], None]]


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
    unread: set[str],
) -> None:
    """The bundle's name, version, source files (also listed in the report) and the delivered
    name of each column (``read``: a layer's columns as its file spells them). An unread
    source is not hashed: it may be a pipe that never ends, or lead outside the delivery."""
    extra = [(key, path) for key, path in csv_paths.items() if key not in unread]
    if request.manifest is not None:
        extra.append(("manifest", request.manifest))
    kept = {key: source for key, source in manifest.sources.items() if key not in unread}
    sources = source_files(request.source_dir, evolve(manifest, sources=kept), extra)
    report.figures["sources"] = list(dict.fromkeys(s.path for s in sources))
    info = BundleInfoRow(
        name=manifest.name,
        version=request.version,
        created=request.created,
        description=manifest.description,
        nrf_version=nrf.__version__,
    )
    write_provenance(writer, info, sources, column_rows(manifest, read))


def _stage(
    writer: GeoPackageWriter,
    delivery: Delivery,
    request: BuildRequest,
    report: QcReport,
    progress: Progress | None,
) -> set[str]:
    """Every layer and table into the staging file, an unread one empty (the gate's schema
    needs it); returns the sources unread, with a coefficient layer that breaks part-way."""
    for key, layer in delivery.small.items():
        if layer is not None:
            stage_small(writer, key, layer, report)
        elif key != "edp_extents":  # optional, and read by no rule
            create_small_layer(writer, key)
    settings = settings_table(request.vat_rate, request.levy_rounding)
    for table in (*delivery.tables, settings):
        writer.create_table(table.name, table.columns, table.rows)
    unread = set(delivery.unread)
    if delivery.coefficients is None:
        create_coefficient_layer(writer)
        return unread
    with contextlib.closing(delivery.coefficients) as coefficients:
        try:
            stage_coefficients(
                writer, coefficients, report, progress and progress("reading coefficients")
            )
        except SourceUnreadable as exc:
            report.add(exc.code, COEFFICIENTS, exc.key, exc.detail)
            unread.add(COEFFICIENTS)
    return unread


# Long: the build's steps in order (read, stage, gate, then publish or refuse), one report.
def build_bundle(request: BuildRequest, progress: Progress | None = None) -> BuildOutcome:
    """Read what can be read, gate it, and publish only a bundle with no problem at all."""
    check_output_folder(request.output)
    for stale in sweep_stale_staging(request.output):
        print(f"removed {stale.name}, left by a build that was killed", file=sys.stderr)
    manifest = load_manifest(request.manifest)
    report = QcReport()
    given = {"levy_charges": request.levy_charges, "inflation_index": request.inflation_index}
    outside(request.source_dir, given, manifest, report)
    default = _default(request, manifest.default_occupancy, manifest.default_water_usage)
    delivery = read_delivery(request.source_dir, given, manifest, default, report)
    previous = _previous(request.previous, report) if request.previous else None
    with _staged(request) as writer:
        unread = _stage(writer, delivery, request, report, progress)
        if unread:
            report.figures["unread"] = sorted(unread)
        read = {key: layer.names for key, layer in delivery.small.items() if layer is not None}
        if delivery.coefficients is not None:
            read[COEFFICIENTS] = delivery.coefficients.names
        _write_provenance(writer, request, manifest, delivery.csv_paths, read, report, unread)
        writer.flush()
        run_gate(
            writer.connection,
            report,
            previous=previous,
            progress=progress and progress("checking coefficients"),
            unread=bundle_names(unread),
        )
        unreadable = bool(report.codes() & UNREADABLE)
        if report.passed and not unreadable:
            writer.connection.execute(
                "UPDATE bundle_info SET qc_outcome = ?, qc_summary = ?",
                (report.outcome, report.summary()),
            )
            publish(writer, report, request.output)
    if not report.passed or unreadable:
        # Written once the staging file is gone: on a nearly full disk, its space is needed.
        write_report(report, request.output)
        return BuildOutcome(report, written=False, unreadable=unreadable)
    # The gate checked every geometry of every layer: readers may trust this exact file.
    # Best effort: without the record (a full disk) readers check the bundle themselves.
    record_checked_by_gate(request.output)
    return BuildOutcome(report, written=True, unreadable=False)
