"""Read every source of a delivery that can be read, and name the ones that could not be.

A data manager mends a delivery between runs, so one run must name every problem: a source
that cannot be read (missing, damaged, not UTF-8, in another CRS, a symbolic link out of the
delivery) is reported and set aside as *unread*, and the rest is read all the same, so the
quality gate can still judge it. An unread source is never opened again after its refusal: a
pipe or a link leading outside stays unread, and no later step (the provenance's digests)
touches it.
"""

from __future__ import annotations

import glob
from collections.abc import Iterable, Mapping
from pathlib import Path

from attrs import frozen

from nrf.bundles import cleaning, source_reader
from nrf.bundles.coefficient_source import CoefficientSource, open_coefficients
from nrf.bundles.geopackage_writer import Table
from nrf.bundles.levy_tables import charges_table, index_table
from nrf.bundles.manifest import CSV_SOURCES, Manifest
from nrf.bundles.qc.report import QcReport
from nrf.bundles.schedule_csv import read_csv_rows

# Finding codes that mean a source could not be read (or, for the default, not completed).
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
# A source whose bundle layer or table has another name.
BUNDLE_NAME = {"inflation_index": "levy_inflation_index"}
COEFFICIENTS = "land_use_coefficients"


@frozen(kw_only=True)
class Delivery:
    """What was read: small layers (None: not read), cleaned tables, the coefficient layer
    ready to stream (None: not read), the levy CSVs' paths, and the unread sources' keys."""

    small: dict[str, source_reader.VectorLayer | None]
    tables: list[Table]
    coefficients: CoefficientSource | None
    csv_paths: dict[str, Path]
    unread: set[str]


def unread_sources(report: QcReport) -> set[str]:
    """Every source (or ``previous``) with a finding that says it could not be read."""
    return {layer for (code, layer) in report.counts if code in UNREADABLE}


def bundle_names(sources: set[str]) -> set[str]:
    """The bundle layers and tables the given sources would have filled."""
    return {BUNDLE_NAME.get(key, key) for key in sources}


def csv_paths(root: Path, given: Mapping[str, Path | None], manifest: Manifest) -> dict[str, Path]:
    """Each levy CSV: the command line's file, else the manifest's path inside the delivery."""
    return {
        key: given.get(key) or source_reader.source_path(root, manifest.sources[key])
        for key in CSV_SOURCES
    }


def outside(
    root: Path, given: Mapping[str, Path | None], manifest: Manifest, report: QcReport
) -> None:
    """Every manifest source that resolves (through symbolic links) outside the delivery."""
    resolved = root.resolve()
    for key, source in manifest.sources.items():
        if given.get(key) is not None:
            continue  # a file named on the command line is the operator's own choice
        path = source_reader.source_path(root, source)
        # A shapefile's .dbf, .shx, .prj or .cpg is read with it: each must stay inside too.
        parts = sorted(path.parent.glob(f"{glob.escape(path.stem)}.*"))
        for item in [path] + (parts if path.suffix.casefold() == ".shp" else []):
            if (item.exists() or item.is_symlink()) and not item.resolve().is_relative_to(resolved):
                shown = source.path if item == path else f"{source.path} ({item.name})"
                report.add(
                    "source_outside",
                    key,
                    shown,
                    f"leads to {item.resolve()}, outside the delivery {resolved}: deliver the "
                    "file itself, or name it on the command line",
                )
                if item == path:
                    break  # its parts went with it: one finding says so


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


def read_delivery(
    root: Path,
    given: Mapping[str, Path | None],
    manifest: Manifest,
    default: tuple[float, float] | None,
    report: QcReport,
) -> Delivery:
    """Every source but those already refused (``report``'s unread ones), each read once."""
    skip = unread_sources(report)
    small = {
        key: None if key in skip else source_reader.read_vector(root, key, source, report)
        for key, source in ((k, manifest.sources[k]) for k in SMALL_LAYERS)
    }
    lookups = {}
    for key in ("wwtw_permits", "occupancy_rates"):
        rows = (
            None
            if key in skip
            else source_reader.read_table(root, key, manifest.sources[key], report)
        )
        if rows == []:  # the cleaned table would still hold the default or nothing useful
            report.add("empty", key, "-", f"{manifest.sources[key].layer} has no rows")
        lookups[key] = rows
    paths = csv_paths(root, given, manifest)
    levy = {
        key: [] if key in skip else _read_csv(key, paths, manifest, report) for key in CSV_SOURCES
    }
    # An unread lookup is staged empty; its cleaning's findings (no works 141) would only echo
    # the read problem, so they go to a report nobody reads.
    permits_report = report if lookups["wwtw_permits"] is not None else QcReport()
    rates_report = report if lookups["occupancy_rates"] is not None else QcReport()
    tables = [
        cleaning.clean_permits(lookups["wwtw_permits"] or [], manifest, permits_report),
        cleaning.clean_rates(lookups["occupancy_rates"] or [], manifest, default, rates_report),
        charges_table(levy["levy_charges"]),
        index_table(levy["inflation_index"]),
    ]
    coefficients = (
        None
        if COEFFICIENTS in skip
        else open_coefficients(root, manifest.sources[COEFFICIENTS], report)
    )
    return Delivery(
        small=small,
        tables=tables,
        coefficients=coefficients,
        csv_paths=paths,
        unread=unread_sources(report),
    )
