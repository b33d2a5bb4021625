"""`nrf serve` takes the worker's pin: an s3:// bundle is downloaded and verified before it
listens, a wrong digest or synthetic data without the opt-in stops it (one JSON line with the
code), and so does a port already in use."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from support.api_inputs import SMALL_JSON
from support.api_server import running_server, serve_env
from support.bundle_copies import relabelled_bundle
from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer, free_port

GEOJSON = "application/geo+json"
BUCKET, KEY_NAME = "nrf-reference", "bundles/national-2026.2.gpkg"


def published(aws: MotoServer, tmp_path: Path) -> str:
    """A real-looking (not synthetic) bundle in moto's S3; its SHA-256."""
    bundle = relabelled_bundle(tmp_path / "national.gpkg", name="national", version="2026.2")
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    s3.upload_file(str(bundle), BUCKET, KEY_NAME)
    return hashlib.sha256(bundle.read_bytes()).hexdigest()


def pinned_env(aws: MotoServer, tmp_path: Path, sha256: str) -> dict[str, str]:
    return serve_env(
        tmp_path / "results",
        NRF_ALLOW_SYNTHETIC_DATA="",  # a real deployment: synthetic data refused
        NRF_REFERENCE_DATA=f"s3://{BUCKET}/{KEY_NAME}",
        NRF_REFERENCE_DATA_SHA256=sha256,
        NRF_REFERENCE_DATA_CACHE=str(tmp_path / "cache"),
        AWS_ENDPOINT_URL=aws.endpoint_url,
        AWS_REGION=REGION,
        AWS_ACCESS_KEY_ID=FAKE_CREDENTIALS["aws_access_key_id"],
        AWS_SECRET_ACCESS_KEY=FAKE_CREDENTIALS["aws_secret_access_key"],
    )


def refused(env: dict[str, str], port: int) -> tuple[int, list[dict], str]:
    """Run `nrf serve` that is expected to stop: exit code, its JSON lines, all of stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "serve", "--bind", f"127.0.0.1:{port}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    return done.returncode, lines, done.stderr


def cannot_start(lines: list[dict]) -> list[dict]:
    return [e for e in lines if e["event"] == "api_cannot_start"]


def test_an_s3_pin_is_downloaded_verified_and_served(aws: MotoServer, tmp_path: Path) -> None:
    sha256 = published(aws, tmp_path)
    log = tmp_path / "serve.log"
    with running_server(pinned_env(aws, tmp_path, sha256), log) as server:
        assert server.request("GET", "/health").status == 200
        ready = server.request("GET", "/ready")
        assert ready.status == 200, ready.body
        doc = ready.json()
        assert (doc["bundle_name"], doc["bundle_version"], doc["bundle_sha256"]) == (
            "national",
            "2026.2",
            sha256,
        )
        assert doc["synthetic"] is False
        quote = server.post("/v1/quotes", SMALL_JSON.read_bytes(), GEOJSON)
        assert quote.status == 200, quote.body[:300]
        assert quote.json()["provenance"]["bundle_sha256"] == sha256
    events = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    [listening] = [e for e in events if e["event"] == "api_listening"]
    assert listening["listening_on"] == f"http://127.0.0.1:{server.port}"
    # The local copy, named by its digest, under the cache (the URI's "//" intact on the way).
    assert listening["reference_data"] == str(tmp_path / "cache" / f"{sha256}-national-2026.2.gpkg")


def test_a_wrong_digest_stops_serve_before_it_listens(aws: MotoServer, tmp_path: Path) -> None:
    published(aws, tmp_path)
    wrong = "ab" * 32
    code, lines, _ = refused(pinned_env(aws, tmp_path, wrong), free_port())
    [line] = cannot_start(lines)
    assert (code, line["code"]) == (3, "reference_data_digest_mismatch")
    assert wrong in line["error"]
    assert not [e for e in lines if e["event"] == "api_listening"]


def test_synthetic_data_is_refused_without_the_opt_in(tmp_path: Path) -> None:
    env = serve_env(tmp_path / "results", NRF_ALLOW_SYNTHETIC_DATA="")
    code, lines, _ = refused(env, free_port())
    [line] = cannot_start(lines)
    assert (code, line["code"]) == (4, "synthetic_data_not_allowed")


def test_a_missing_bundle_stops_serve(tmp_path: Path) -> None:
    env = serve_env(tmp_path / "results", NRF_REFERENCE_DATA=str(tmp_path / "missing.gpkg"))
    code, lines, _ = refused(env, free_port())
    [line] = cannot_start(lines)
    assert (code, line["code"]) == (3, "broken_bundle")


def test_a_port_in_use_is_one_json_line_with_its_code(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, lines, stderr = refused(serve_env(tmp_path / "results"), port)
    assert code == 3
    assert len(stderr.splitlines()) == 1, stderr
    [line] = lines
    assert (line["event"], line["code"], line["bind"]) == (
        "api_cannot_start",
        "port_in_use",
        f"127.0.0.1:{port}",
    )


@pytest.mark.parametrize("bind", ["127.0.0.1:http-ish", "no-such-host.invalid:8080"])
def test_an_address_that_cannot_be_bound_is_named(tmp_path: Path, bind: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nrf.entrypoints.cli", "serve", "--bind", bind],
        env=serve_env(tmp_path / "results"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    [line] = [json.loads(x) for x in done.stderr.splitlines()]
    assert (done.returncode, line["code"], line["bind"]) == (3, "cannot_bind", bind)
