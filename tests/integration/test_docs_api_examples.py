"""The API examples of README.md and docs/api.md run as written, and answer as documented.

Each example block starts `nrf serve` and sends the sample site with curl; the test runs both
lines with bash from the repository's root, then validates curl's output against the OpenAPI
document's `Result`. Only the port is changed (to a free one: the machine is shared), and the
environment is cleared of NRF_ variables so the example's own settings are the only ones.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from nrf.entrypoints.api.meta import api_document
from support.moto_server import free_port

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)


def serve_examples(doc: Path) -> list[list[str]]:
    """Each ```sh block that starts `nrf serve`, as its commands (continuations joined)."""
    found = []
    for block in BLOCK.findall(doc.read_text(encoding="utf-8")):
        commands = [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]
        if any(" nrf serve" in c or "/nrf serve" in c for c in commands):
            found.append(commands)
    return found


def on_port(command: str, port: int) -> str:
    """The command on ``port``: 8080 replaced, or a bind added where the default was meant."""
    command = re.sub(r"\s+#.*$", "", command)  # a trailing comment
    if "nrf serve" in command and "--bind" not in command:
        command += f" --bind 127.0.0.1:{port}"
    return command.replace("8080", str(port))


def wait_for_health(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    for _ in range(600):  # the process says when it is up; this bounds a hang (60 s)
        if server.poll() is not None:
            raise AssertionError(f"nrf serve exited {server.returncode}: {log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return
        except OSError:  # refused, reset or timed out while it starts
            time.sleep(0.1)
    raise AssertionError(f"nrf serve did not answer: {log.read_text()}")


@pytest.mark.skipif(shutil.which("curl") is None, reason="the examples use curl")
@pytest.mark.parametrize("doc", ["README.md", "docs/api.md"])
def test_the_api_example_runs_as_written(doc: str, tmp_path: Path) -> None:
    [commands] = serve_examples(ROOT / doc)
    serve, curl = commands
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NRF_", "AWS_", "GOVUK_"))}
    env["NRF_RESULTS_DIR"] = str(tmp_path / "results")
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            ["bash", "-c", on_port(serve, port)],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for_health(port, server, log)
        answer = subprocess.run(
            ["bash", "-c", on_port(curl, port)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            timeout=120,
            check=True,
        )
    finally:
        with contextlib.suppress(ProcessLookupError):  # the example's shell and nrf serve
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
    result = json.loads(answer.stdout)
    spec = api_document()
    registry: Registry[object] = Registry().with_resource(
        "urn:nrf:openapi", Resource.from_contents(spec, default_specification=DRAFT202012)
    )
    OAS31Validator(
        {"$ref": "urn:nrf:openapi#/components/schemas/Result"},
        registry=registry,
        format_checker=OAS31Validator.FORMAT_CHECKER,
    ).validate(result)
    # The sample is one small site, priced from the bundled synthetic data, which says so.
    assert [site["site"]["id"] for site in result["sites"]] == ["24/00119/F"]
    assert result["provenance"]["synthetic_data"] is True
