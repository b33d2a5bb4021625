"""The same image serves the quote API as deploy/cloudformation/api.yaml runs it: the template's
command and environment (keys from the secret), its read-only root with /tmp mounted, and the
same quote, figure for figure, as `nrf assess` on this machine from the same bundle.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from support.api_inputs import SMALL_JSON, cli_output, unstamped
from support.api_server import Answer, Server
from support.bundle_copies import relabelled_bundle
from support.cloudformation import read_only_root, writable_paths
from support.deploy_stacks import API_KEYS, REFERENCE_BUCKET, REFERENCE_KEY, api_env, api_stack
from support.image import running_image
from support.moto_server import FAKE_CREDENTIALS, REGION, MotoServer, free_port

pytestmark = pytest.mark.image

GEOJSON = "application/geo+json"
START_SECONDS = 120  # a bound on waiting, not a measurement


def wait_ready(server: Server, timeout: float) -> Answer:
    deadline = time.monotonic() + timeout
    while True:
        try:
            answer = server.request("GET", "/ready", timeout=5)
            if answer.status == 200:
                return answer
        except OSError:
            pass
        assert time.monotonic() < deadline, "the API never turned ready"
        time.sleep(0.5)


def test_the_image_serves_the_api_from_the_template_and_quotes_as_the_cli_does(
    aws: MotoServer, tmp_path: Path
) -> None:
    bundle = relabelled_bundle(tmp_path / "national.gpkg", name="national", version="2026.2")
    sha256 = hashlib.sha256(bundle.read_bytes()).hexdigest()
    stack = api_stack(sha256)
    s3 = aws.client("s3")
    for name in (REFERENCE_BUCKET, "nrf-results"):
        s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": REGION})
    s3.upload_file(str(bundle), REFERENCE_BUCKET, REFERENCE_KEY)
    [definition] = stack.resource("TaskDefinition")["Properties"]["ContainerDefinitions"]
    assert definition["Command"] == ["serve", "--bind", "0.0.0.0:8080"]
    # The host's network is shared: the same command on a free loopback port.
    port = free_port()
    command = ["serve", "--bind", f"127.0.0.1:{port}"]
    env = {
        **api_env(stack),
        "AWS_ENDPOINT_URL": aws.endpoint_url,
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
    }
    key = API_KEYS.split(",")[0]
    with running_image(
        env,
        command,
        read_only=read_only_root(stack, "TaskDefinition"),
        writable=writable_paths(stack, "TaskDefinition"),
    ) as (container, log):
        server = Server(base=f"http://127.0.0.1:{port}", port=port, log=tmp_path / "unused")
        ready = wait_ready(server, START_SECONDS).json()
        assert (ready["bundle_version"], ready["bundle_sha256"]) == ("2026.2", sha256)
        refused = server.post("/v1/quotes", SMALL_JSON.read_bytes(), GEOJSON, key=None)
        assert refused.status == 401
        answer = server.post("/v1/quotes", SMALL_JSON.read_bytes(), GEOJSON, key=key)
        assert (answer.status, answer.content_type) == (200, "application/json")
        container.stop(timeout=int(definition["StopTimeout"]))
        assert container.wait(timeout=30)["StatusCode"] == 0, log.tail()
        log.finish()

    from_cli = cli_output(SMALL_JSON, ".json", tmp_path, "--reference-data", str(bundle))
    assert unstamped(answer.body, "POST /v1/quotes body") == unstamped(from_cli, SMALL_JSON.name)
    assert log.lines > 0 and log.not_json == [], log.not_json[:5]
