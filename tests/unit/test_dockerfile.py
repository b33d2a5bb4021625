"""The Dockerfile read as text (no Docker engine here): non-root, exec form, health check."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    joined: list[str] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        joined.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends in a continuation"
    return [(i.split(None, 1)[0].upper(), i.split(None, 1)[1]) for i in joined]


def only(name: str) -> str:
    found = [args for instruction, args in instructions() if instruction == name]
    assert len(found) == 1, f"expected exactly one {name}, found {found}"
    return found[0]


def stages() -> list[list[tuple[str, str]]]:
    """The instructions of each build stage (the ARGs before the first FROM are left out)."""
    found: list[list[tuple[str, str]]] = []
    for name, args in instructions():
        if name == "FROM":
            found.append([])
        if found:
            found[-1].append((name, args))
    return found


def base_image() -> str:
    """The image every stage starts from: the PYTHON_IMAGE build argument's default."""
    (arg,) = [a for name, a in instructions() if name == "ARG" and a.startswith("PYTHON_IMAGE=")]
    return arg.split("=", 1)[1]


def test_the_base_is_python_3_11_slim_pinned_by_digest() -> None:
    image, _, digest = base_image().partition("@")
    assert image == "python:3.11-slim"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest), "the base must be pinned by digest"
    for stage in stages():
        assert stage[0][1].split()[0] == "${PYTHON_IMAGE}", stage[0]


def test_multi_stage_so_the_build_tools_do_not_ship() -> None:
    build, runtime = stages()
    assert build[0][1].endswith(" AS build")
    # Only the finished virtualenv crosses over; uv and pip never run in the runtime stage.
    copies = [args for name, args in runtime if name == "COPY"]
    assert copies == ["--from=build /app/.venv /app/.venv"]
    runs = " ".join(args for name, args in runtime if name == "RUN")
    assert "pip" not in runs and "uv " not in runs
    assert any(name == "ENV" and "/app/.venv/bin" in args for name, args in runtime)


def test_the_image_is_built_from_the_lock() -> None:
    build = stages()[0]
    assert any(name == "COPY" and "uv.lock" in args.split() for name, args in build)
    syncs = [args for name, args in build if name == "RUN" and "uv sync" in args]
    assert syncs and all("--frozen" in args for args in syncs)
    assert not any(name == "RUN" and "pip install ." in args for name, args in build)
    # The same uv as scripts/uv, which wrote the lock.
    pinned = re.search(r"^UV_VERSION=(\S+)$", (ROOT / "scripts" / "uv").read_text(), re.M)
    assert pinned and any(f"uv=={pinned.group(1)}" in args for _, args in build)


def test_the_process_runs_as_a_non_root_user() -> None:
    steps = instructions()
    users = [i for i, (name, _) in enumerate(steps) if name == "USER"]
    assert users, "no USER: the worker would run as root"
    user = steps[users[-1]][1].split(":")[0]
    assert user not in ("root", "0")
    entry = next(i for i, (name, _) in enumerate(steps) if name == "ENTRYPOINT")
    assert users[-1] < entry
    # The uid it switches to is created in the image.
    assert any(name == "RUN" and "useradd" in args and user in args for name, args in steps)


def test_the_entrypoint_is_exec_form_so_sigterm_reaches_the_supervisor() -> None:
    # Shell form would make /bin/sh PID 1, and sh does not pass SIGTERM on.
    assert json.loads(only("ENTRYPOINT")) == ["nrf"]
    assert json.loads(only("CMD")) == ["worker"]


def test_the_health_port_is_exposed() -> None:
    assert only("EXPOSE").split() == ["8085"]


def healthcheck_command() -> list[str]:
    args = only("HEALTHCHECK")
    options, _, command = args.partition("CMD ")
    assert "--timeout=" in options and "--interval=" in options
    exec_form: list[str] = json.loads(command)
    return exec_form


class _Health(BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        code = self.status if self.path == "/health" else 404
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[HTTPServer]:
    server = HTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("status", "exit_code"), [(200, 0), (503, 1)])
def test_the_healthcheck_command_follows_health(
    health_server: HTTPServer, status: int, exit_code: int
) -> None:
    command = healthcheck_command()
    assert command[0] == "python"
    _Health.status = status
    port = str(health_server.server_address[1])
    done = subprocess.run(
        [sys.executable, *command[1:]],
        env={"AWS_HEALTH_PORT": port},
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == exit_code


def test_nothing_from_the_working_tree_but_the_package_is_sent_to_the_build() -> None:
    # An allow-list: everything is ignored but what the Dockerfile copies, so a new folder
    # (a cache, a virtualenv, a tarball) never reaches the build context by default.
    # tests/integration/test_image_lean.py checks the context an engine is really sent.
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert patterns[0] == "*"
    kept = {p.removeprefix("!") for p in patterns if p.startswith("!")}
    assert kept == {"src", "pyproject.toml", "README.md", "uv.lock"}
    copied = {
        part
        for name, args in instructions()
        if name == "COPY" and not args.startswith("--from")
        for part in args.split()[:-1]
    }
    assert copied == kept
