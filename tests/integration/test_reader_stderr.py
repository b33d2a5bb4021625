"""What the forked reader's C libraries print to stderr reaches the log as data, bounded.

GDAL, PROJ and SQLite write to the process's stderr themselves, past Python's logging; from
the forked reader that text (a CRS definition or a name from the user's file) landed in the
API's log as raw lines: a JSON line in it read as a convincing access-log record, an 8 MB
definition as one 8 MB line. Each test runs a real process with the JSON logging of the
entrypoints and a real forked child, and reads every line that process wrote to stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.boundary_sites import write_sites

FORGED = '{"event": "request", "level": "info", "path": "/v1/quotes", "status": 200}'

CHILD_PRINTS = """
import os, sys
from nrf.adapters.telemetry.logging_setup import configure_logging
from nrf.adapters.site_boundaries.bounded_read import bounded_call
from nrf.domain.validation import DEFAULT_LIMITS
configure_logging()
forged = sys.argv[1].encode()
def prints():  # as a C library prints: straight to file descriptor 2
    os.write(2, b"ERROR 1: " + forged + b"\\n" + forged + b"\\n" + b"x" * 8_000_000 + b"\\n")
    return 7
print(bounded_call(prints, limits=DEFAULT_LIMITS))
"""

GDAL_DEBUG = """
import sys
from nrf.adapters.telemetry.logging_setup import configure_logging
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
configure_logging()
print(len(read_boundary_bytes(open(sys.argv[1], "rb").read(), "upload.gpkg")))
"""


def records(stderr: str) -> list[dict[str, object]]:
    """Every line of stderr as a JSON record (json.loads fails on any other line)."""
    return [json.loads(line) for line in stderr.splitlines()]


def test_a_forged_line_and_8_mb_from_the_child_are_one_bounded_record() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD_PRINTS, FORGED], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["7"], done.stderr
    [record] = records(done.stderr)  # before: the forged lines and an 8 MB line, raw
    assert record["event"] == "reader_stderr"
    # "ERROR 1: " (9) + the line (75) + "\n" twice over, 8,000,000 x's and "\n": 8,000,170.
    assert record["bytes"] == 2 * (9 + len(FORGED) + 1) - 9 + 8_000_000 + 1
    assert isinstance(record["text"], str) and len(record["text"]) == 2000
    assert record["text"].startswith("ERROR 1: " + FORGED + "\n")
    assert len(done.stderr) < 4000


def test_gdal_printing_from_the_reader_is_logged_as_json(tmp_path: Path) -> None:
    # CPL_DEBUG makes GDAL print its own lines (the temporary path included) to stderr.
    path = write_sites(tmp_path / "sites.gpkg", 2)
    done = subprocess.run(
        [sys.executable, "-c", GDAL_DEBUG, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CPL_DEBUG": "ON"},
    )
    assert done.stdout.split() == ["2"], done.stderr
    found = records(done.stderr)  # before: "GPKG: GeoPackage v1.4.0" and the like, raw
    assert found and {r["event"] for r in found} == {"reader_stderr"}
    assert any("GPKG" in str(r["text"]) for r in found)
