"""GDAL's read of a user's file is bounded in time and in memory, on every way in.

Two hostile files, each within the file limits and passing every check made before GDAL
reads: a KML of one ring of 999,000 positions (under a file's 1,000,000 positions, ten times
one site's 100,000 vertices, so refused only once GDAL has built it: ~0.3 s and ~200 MiB of
GDAL's), and a GeoPackage of one site whose name is 45,000,000 characters (refused by the
500-character rule only after GDAL has read it whole). Before the bound both were read in the
caller's process for as long and as large as GDAL needed, and refused afterwards
(``too_many_vertices``, ``invalid_text``); here the deadline and the memory are set small
through the configured limits, and each way in (the CLI, an API upload, the worker's S3 input)
must refuse with ``read_timed_out`` / ``read_too_large`` and leave nothing behind.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from nrf.adapters.environment.assess_limits import input_limits
from nrf.adapters.environment.settings import load_settings
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.adapters.site_boundaries.s3_job_boundary_source import S3JobBoundarySource
from nrf.domain.errors import InvalidInput
from nrf.domain.validation import DEFAULT_LIMITS, MIB, InputLimits, validate_features
from nrf.entrypoints.cli import main
from nrf.entrypoints.exit_codes import EXIT_INVALID_INPUT
from support.api_in_process import anonymous_client
from support.api_server import multipart
from support.boundary_sites import long_rows_geopackage
from support.hostile import huge_ring_kml
from support.s3_input import OneObject, uri_job

# A deadline no read of GDAL's can meet (the ring alone takes it ~0.3 s), and a ceiling
# under the ~200 MiB it needs: both as an operator would set them.
QUICK_ENV = {"NRF_MAX_READ_SECONDS": "0.05"}
SMALL_ENV = {"NRF_MAX_READ_MEMORY_BYTES": str(64 * MIB)}
# 700 names of 64,000 characters (45 MB; one 45 MB name is now refused before GDAL reads it,
# test_upload_costs.py) need Python's strings and their pickled copy (~90 MB): within 48 MiB
# both a chunked and a whole read run out (a whole read completes from ~96 MiB). Both run in
# a fresh process: a forked reader may reuse memory its parent's heap already holds, unseen by
# its ceiling, and pytest's heap is large and varies.
NAME_STREAMED_ENV = {"NRF_MAX_READ_MEMORY_BYTES": str(48 * MIB)}
NAME_WHOLE_ENV = {"NRF_MAX_READ_MEMORY_BYTES": str(48 * MIB)}


@functools.cache
def ring_kml() -> bytes:
    return huge_ring_kml(999_000)


def worker_limits(env: dict[str, str]) -> InputLimits:
    """The limits the worker and the API build from these variables (container.limits)."""
    return input_limits(load_settings(env))


def refusal(read: object) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        read()  # type: ignore[operator]
    return caught.value


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder the readers use, to show they leave nothing in it."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_with_the_default_limits_gdal_builds_the_ring_before_it_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ring.kml"
    path.write_bytes(ring_kml())
    [feature] = read_boundary_file(path)  # the whole ring, built: 20 s and 512 MiB suffice
    assert len(feature.geometry.exterior.coords) == 999_000  # type: ignore[attr-defined]
    assert refusal(lambda: validate_features([feature])).codes == ["too_many_vertices"]


def test_nrf_assess_refuses_a_read_past_the_deadline_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ring.kml"
    path.write_bytes(ring_kml())
    output = tmp_path / "out" / "result.csv"
    monkeypatch.setenv("NRF_MAX_READ_SECONDS", QUICK_ENV["NRF_MAX_READ_SECONDS"])
    assert main(["assess", str(path), "--output", str(output)]) == EXIT_INVALID_INPUT
    assert "read_timed_out" in capsys.readouterr().err
    assert not output.parent.exists() or not any(output.parent.iterdir())


def test_nrf_assess_refuses_a_read_past_the_memory_ceiling(tmp_path: Path) -> None:
    # In a fresh process, as every memory-ceiling test here (see NAME_WHOLE_ENV).
    path = tmp_path / "ring.kml"
    path.write_bytes(ring_kml())
    done = nrf_assess(path, SMALL_ENV)
    assert done.returncode == EXIT_INVALID_INPUT, done.stderr
    assert "read_too_large" in done.stderr and "64 MiB" in done.stderr


def nrf_assess(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`nrf assess PATH` in a fresh process with ``env`` added to the environment."""
    argv = [sys.executable, "-m", "nrf.entrypoints.cli", "assess", str(path)]
    environ = {**os.environ, **env}
    return subprocess.run(argv, env=environ, capture_output=True, text=True, timeout=300)


def test_nrf_assess_bounds_the_streamed_read_of_a_geopackage(tmp_path: Path) -> None:
    # A GeoPackage is read a chunk at a time by one child (boundary_stream): the chunk with
    # the 45 MB of names is refused, not read into `nrf assess`'s own memory.
    path = long_rows_geopackage(tmp_path / "long-names.gpkg")
    done = nrf_assess(path, NAME_STREAMED_ENV)
    assert done.returncode == EXIT_INVALID_INPUT, done.stderr
    assert "read_too_large" in done.stderr


def test_the_api_refuses_an_upload_whose_read_is_past_the_deadline(private_tmp: Path) -> None:
    client = anonymous_client(worker_limits(QUICK_ENV))
    body, content_type = multipart({"boundary": ("ring.kml", ring_kml())}, {})
    answer = client.simulate_post("/v1/quotes", body=body, headers={"Content-Type": content_type})
    assert answer.status_code == 422
    assert answer.json["code"] == "read_timed_out"
    assert not any(private_tmp.iterdir()), "the upload's temporary copy is removed"


def upload_answer(env: dict[str, str]) -> str:
    """The API's status and problem code for the ring's upload under ``env``'s limits."""
    client = anonymous_client(worker_limits(env))
    body, content_type = multipart({"boundary": ("ring.kml", ring_kml())}, {})
    answer = client.simulate_post("/v1/quotes", body=body, headers={"Content-Type": content_type})
    return f"{answer.status_code} {answer.json['code']}"


def s3_refusal(env: dict[str, str]) -> str:
    """The worker's S3 boundary source's refusal of the ring under ``env``'s limits."""
    source = S3JobBoundarySource(OneObject(ring_kml()), "nrf-in", "jobs", worker_limits(env))
    return " ".join(refusal(lambda: source.features(uri_job("ring.kml"))).codes)


def in_fresh_process(call: str, temp: Path) -> str:
    """``call`` (an expression over this module) printed by a fresh interpreter whose
    temporary folder is ``temp``: a forked reader may reuse memory its parent's heap already
    holds, unseen by its ceiling, and pytest's heap is large and varies."""
    here = Path(__file__).resolve().parent
    code = f"import {Path(__file__).stem} as t; print(t.{call})"
    paths = os.pathsep.join([str(here), str(here.parent), os.environ.get("PYTHONPATH", "")])
    environ = {**os.environ, "PYTHONPATH": paths, "TMPDIR": str(temp)}
    argv = [sys.executable, "-c", code]
    done = subprocess.run(argv, env=environ, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_api_refuses_an_upload_whose_read_is_past_the_memory_ceiling(
    private_tmp: Path,
) -> None:
    assert in_fresh_process("upload_answer(t.SMALL_ENV)", private_tmp) == "422 read_too_large"
    assert not any(private_tmp.iterdir())


WHOLE_READ = """
import os, sys
from nrf.adapters.site_boundaries.boundary_files import read_boundary_bytes
from nrf.domain.errors import InvalidInput
from nrf.adapters.environment.assess_limits import input_limits
from nrf.adapters.environment.settings import load_settings
data = open(sys.argv[1], "rb").read()
try:
    read_boundary_bytes(data, "upload.gpkg", input_limits(load_settings(os.environ)))
except InvalidInput as error:
    print(" ".join(error.codes))
"""


def test_a_whole_read_of_the_long_names_is_refused_past_the_ceiling(tmp_path: Path) -> None:
    # As the API and the worker read an upload (whole), in a fresh process with the variable.
    path = long_rows_geopackage(tmp_path / "n.gpkg")
    argv = [sys.executable, "-c", WHOLE_READ, str(path)]
    environ = {**os.environ, **NAME_WHOLE_ENV}
    done = subprocess.run(argv, env=environ, capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["read_too_large"], done.stderr


def test_the_workers_s3_input_past_the_deadline_is_refused_as_input(private_tmp: Path) -> None:
    # An input error: the job is failed once (test_hostile_input.py runs it through a worker).
    assert s3_refusal(QUICK_ENV) == "read_timed_out"
    assert not any(private_tmp.iterdir())


def test_the_workers_s3_input_past_the_memory_ceiling_is_refused_as_input(
    private_tmp: Path,
) -> None:
    assert in_fresh_process("s3_refusal(t.SMALL_ENV)", private_tmp) == "read_too_large"
    assert not any(private_tmp.iterdir())


def test_the_default_ceiling_reads_the_long_names_and_the_text_rule_refuses_it(
    tmp_path: Path,
) -> None:
    # The control for the two GeoPackage tests above: within 512 MiB the read completes.
    path = long_rows_geopackage(tmp_path / "n.gpkg")
    features = read_boundary_file(path, DEFAULT_LIMITS)
    assert refusal(lambda: validate_features(features)).codes == ["invalid_text"]
