"""Writing a build's output, or saying why it cannot be (no such folder, a full disk).

That is a fault of the machine, not of the delivery, so it has its own code and exit status
and is never reported as a quality-gate failure; whatever the build had written is removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from pathlib import Path

from nrf.bundles.geopackage_writer import GeoPackageWriter
from nrf.bundles.qc.report import QcReport, report_paths
from nrf.domain.errors import NrfError

CANNOT_WRITE = "cannot_write_output"


class OutputNotWritten(NrfError):
    """The bundle (or its staging file) could not be written; nothing was left behind."""

    def __init__(self, output: Path, cause: BaseException) -> None:
        reason = _reason(cause)
        super().__init__(
            CANNOT_WRITE,
            f"cannot write {output} ({reason}); nothing was written and any bundle "
            "already there is untouched",
        )


def _reason(cause: BaseException) -> str:
    text = " ".join(str(cause).split())
    if (isinstance(cause, OSError) and cause.errno == errno.ENOSPC) or "full" in text:
        return f"the disk is full: {text}"
    return text or type(cause).__name__


def forget_report(output: Path) -> None:
    """Remove a report written for a bundle that then failed to appear."""
    for path in report_paths(output):
        with contextlib.suppress(OSError):
            path.unlink()


def check_output_folder(output: Path) -> None:
    """Create the bundle's folder when missing (as ``nrf assess`` does for its outputs); refuse
    at once when it cannot be made or written."""
    folder = output.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputNotWritten(output, exc) from None
    if not folder.is_dir():
        raise OutputNotWritten(output, FileNotFoundError(f"no folder {folder}"))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputNotWritten(output, PermissionError(f"folder {folder} is not writable"))


def write_report(report: QcReport, output: Path) -> None:
    """The report beside the bundle; a failure to write it is a failure to write the output."""
    try:
        report.write(output)
    except OSError as exc:
        forget_report(output)
        raise OutputNotWritten(output, exc) from None


def publish(writer: GeoPackageWriter, report: QcReport, output: Path) -> None:
    """The report first, then the bundle, so no bundle appears without its report; if the
    bundle then fails to appear (a full disk), the report that would describe it goes too."""
    write_report(report, output)
    try:
        writer.close()
    except (OSError, sqlite3.Error) as exc:
        writer.abort()
        forget_report(output)
        raise OutputNotWritten(output, exc) from None
