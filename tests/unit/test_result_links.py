"""The email's links: their lifetime stays inside SigV4's 7 days, and is said in words."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest

from nrf.adapters.environment.settings import ConfigError, WorkerSettings, load_settings
from nrf.adapters.result_store.local_result_links import LocalResultLinks
from nrf.adapters.result_store.s3_presigned_links import S3PresignedLinks
from nrf.domain.result_links import ResultLinks, expiry_words, file_lines

# 2023-11-14 22:13:20 UTC.
NOW = 1_700_000_000.0


def test_the_stated_expiry_is_the_signing_time_plus_the_lifetime_floored_to_the_minute() -> None:
    # 1 700 000 000 + 601 200 = 1 700 601 200 s = 2023-11-21 21:13:20 UTC -> 21:13.
    links = ResultLinks(files=(("result.html", "u"),), expires_at=NOW + 601_200)
    assert expiry_words(links) == (
        "These links work until 21 November 2023 21:13 UTC. After that, ask us for new ones, "
        "quoting your reference."
    )
    assert expiry_words(ResultLinks(files=())) == "These links do not expire."


def test_presigned_links_carry_the_lifetime_and_name_each_file() -> None:
    client = boto3.client(
        "s3",
        region_name="eu-west-2",
        aws_access_key_id="AKIAEXAMPLE",
        aws_secret_access_key="secret",
    )
    links = S3PresignedLinks(client, "bucket", "/results/", 601_200).links(
        "job-1", ["result.html", "result.json"], NOW
    )
    assert links.expires_at == NOW + 601_200
    assert [name for name, _ in links.files] == ["result.html", "result.json"]
    report = links.url("result.html") or ""
    assert "/results/job-1/result.html?" in report
    assert "X-Amz-Expires=601200" in report
    lines = file_lines(links).splitlines()
    assert (
        lines[1].startswith("* result.json: https://") and "/results/job-1/result.json?" in lines[1]
    )


def test_no_link_outlives_sigv4s_seven_days() -> None:
    with pytest.raises(ValueError, match="604800"):
        S3PresignedLinks(object(), "bucket", "", 604_801)
    assert load_settings({"NRF_RESULT_LINK_SECONDS": "604800"}).result_link_seconds == 604_800
    with pytest.raises(ConfigError, match="NRF_RESULT_LINK_SECONDS"):
        load_settings({"NRF_RESULT_LINK_SECONDS": "604801"})
    # 7 days less an hour: 7 x 86 400 - 3 600 = 601 200.
    assert WorkerSettings().result_link_seconds == 601_200


def test_the_signing_key_comes_as_a_pair_and_is_kept_out_of_logs() -> None:
    with pytest.raises(ConfigError, match="go together"):
        load_settings({"NRF_RESULT_LINK_ACCESS_KEY_ID": "AKIAEXAMPLE"})
    settings = load_settings(
        {
            "NRF_RESULT_LINK_ACCESS_KEY_ID": "AKIAEXAMPLE",
            "NRF_RESULT_LINK_SECRET_ACCESS_KEY": "s3cr3t",
        }
    )
    assert "s3cr3t" in settings.secrets()


def test_local_links_are_under_the_base_url_or_else_the_files_paths(tmp_path: Path) -> None:
    based = LocalResultLinks(tmp_path, "https://results.example/jobs/").links("j-1", ["a.csv"], NOW)
    assert based.files == (("a.csv", "https://results.example/jobs/j-1/a.csv"),)
    assert based.expires_at is None
    plain = LocalResultLinks(tmp_path).links("j-1", ["a.csv"], NOW)
    assert plain.files == (("a.csv", str(tmp_path.absolute() / "j-1" / "a.csv")),)
