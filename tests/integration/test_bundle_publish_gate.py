"""`nrf bundle publish` publishes only what passed the quality gate, unless told otherwise."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from nrf.bundles.publish import publish_bundle
from nrf.domain.errors import NrfError
from nrf.entrypoints.cli import main
from support.bundle_copies import relabelled_bundle
from support.delivery import FixtureData, build_command, write_delivery
from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer

BUCKET = "nrf-gated"


@pytest.fixture
def s3(aws: MotoServer) -> Any:
    client = aws.client("s3")
    client.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    return client


def keys(s3: Any) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]


def cli_publish(aws: MotoServer, bundle: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env |= {
        "AWS_ENDPOINT_URL": aws.endpoint_url,
        "AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
    }
    command = [sys.executable, "-m", "nrf.entrypoints.cli", "bundle", "publish", *flags]
    return subprocess.run(
        [*command, str(bundle), f"s3://{BUCKET}/bundles/"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_bundle_that_never_went_through_the_gate_is_refused(
    aws: MotoServer, s3: Any, tmp_path: Path
) -> None:
    ungated = relabelled_bundle(tmp_path / "copy.gpkg", name="nrf-copy", version="2026.12")
    refused = cli_publish(aws, ungated)
    assert refused.returncode == 1
    assert "bundle_not_checked" in refused.stderr and "--allow-unchecked" in refused.stderr
    assert refused.stdout == ""  # no pin for a deployment to pick up
    assert keys(s3) == []  # nothing uploaded

    allowed = cli_publish(aws, ungated, "--allow-unchecked")
    assert allowed.returncode == 0, allowed.stderr
    assert "did NOT pass the quality gate" in allowed.stderr
    assert keys(s3) == ["bundles/nrf-copy/2026.12/nrf-copy-2026.12.gpkg"]


def test_a_bundle_whose_gate_failed_is_refused(s3: Any, tmp_path: Path) -> None:
    failed = relabelled_bundle(tmp_path / "failed.gpkg", name="nrf-failed", version="1")
    with closing(sqlite3.connect(failed)) as db, db:
        db.execute("ALTER TABLE bundle_info ADD COLUMN qc_outcome TEXT")
        db.execute("UPDATE bundle_info SET qc_outcome = 'failed'")
    with pytest.raises(NrfError) as caught:
        publish_bundle(s3, failed, f"s3://{BUCKET}/bundles/")
    assert caught.value.code == "bundle_not_checked"
    assert "qc_outcome is failed" in caught.value.message
    assert keys(s3) == []


def test_a_bundle_built_by_nrf_bundle_build_publishes_without_the_flag(
    s3: Any, tmp_path: Path
) -> None:
    paths = write_delivery(tmp_path / "iat_input", FixtureData())
    built = tmp_path / "built.gpkg"
    assert main(build_command(tmp_path / "iat_input", paths, built, "2026.12.1")) == 0

    published = publish_bundle(s3, built, f"s3://{BUCKET}/bundles/")
    head = s3.head_object(Bucket=BUCKET, Key=published.location.key)
    assert head["Metadata"]["sha256"] == hashlib.sha256(built.read_bytes()).hexdigest()
    # The build's default name (docs/reference-data.md) and the version given to it.
    assert keys(s3) == ["bundles/nrf-defra-iat/2026.12.1/nrf-defra-iat-2026.12.1.gpkg"]
