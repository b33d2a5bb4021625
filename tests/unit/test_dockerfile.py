"""The Dockerfile read as text (no Docker engine here): non-root, exec form, health check."""

from __future__ import annotations

import json
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


def test_the_base_is_python_3_11_slim() -> None:
    assert only("FROM") == "python:3.11-slim"


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
        [sys.executable, *command[1:]], env={"AWS_HEALTH_PORT": port},
        capture_output=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == exit_code


def test_nothing_from_the_working_tree_but_the_package_is_sent_to_the_build() -> None:
    ignored = {
        line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }  # fmt: skip
    assert {".git", ".venv", "tests", "out"} <= ignored
    assert not {"src", "pyproject.toml", "README.md"} & ignored
