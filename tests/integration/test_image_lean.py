"""The built image carries the package and its dependencies, and nothing else of ours: no secret
in any layer or its configuration, no build tool or cache, none of tests/, benchmarks/ or .git;
it runs as uid 10001; and the build context is only what the Dockerfile copies.
"""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path
from typing import Any

import pytest

from support.image import docker_client, require_image

pytestmark = pytest.mark.image

ROOT = Path(__file__).resolve().parents[2]
SECRET_WORDS = re.compile(r"(SECRET|PASSWORD|TOKEN|API_KEY|ACCESS_KEY|PRIVATE)", re.I)
# What the Dockerfile copies from the context; everything else must be left out of it.
CONTEXT = {"pyproject.toml", "uv.lock", "README.md"}


@pytest.fixture(scope="module")
def client() -> Any:
    return docker_client()


@pytest.fixture(scope="module")
def image(client: Any) -> Any:
    return require_image(client)


@pytest.fixture(scope="module")
def files(client: Any, image: Any) -> list[str]:
    """Every path in the image's filesystem (from an exported, never started container)."""
    container = client.containers.create(image.id)
    try:
        stream = io.BytesIO(b"".join(container.export()))
    finally:
        container.remove(v=True)
    with tarfile.open(fileobj=stream) as tar:
        return ["/" + name.lstrip("./") for name in tar.getnames()]


def test_the_image_runs_as_uid_10001_with_the_worker_as_pid_1s_exec_form_command(
    image: Any,
) -> None:
    config = image.attrs["Config"]
    assert config["User"] == "10001"
    assert (config["Entrypoint"], config["Cmd"]) == (["nrf"], ["worker"])
    assert config["Healthcheck"]["Test"][0] == "CMD"


def test_no_layer_or_setting_carries_a_secret(image: Any) -> None:
    names = [entry.split("=", 1)[0] for entry in image.attrs["Config"]["Env"]]
    assert not [n for n in names if SECRET_WORDS.search(n)], names
    for layer in image.history():
        created_by = layer.get("CreatedBy", "")
        assert not SECRET_WORDS.search(created_by), created_by
    labels = image.attrs["Config"].get("Labels") or {}
    assert not [k for k, v in labels.items() if SECRET_WORDS.search(f"{k}={v}")], labels


def test_the_check_above_does_find_a_secret_where_there_is_one() -> None:
    assert SECRET_WORDS.search("ENV GOVUK_NOTIFY_API_KEY=nrf_live-...")
    assert SECRET_WORDS.search("/bin/sh -c #(nop)  ENV AWS_SECRET_ACCESS_KEY=abc")


def test_nothing_of_the_repository_but_the_installed_package_is_in_the_image(
    files: list[str],
) -> None:
    ours = [f for f in files if f.startswith("/app/")]
    assert {f.split("/")[2] for f in ours} == {".venv", "results"}, sorted(ours)[:20]
    assert not [f for f in files if f.endswith("/.git") or "/.git/" in f]
    # Our tests, benchmarks and sources stay out: the package is installed, not linked.
    assert not [f for f in files if re.search(r"/(tests/support|benchmarks)/", f)]
    assert "/app/src" not in files
    package = [f for f in files if "/site-packages/nrf/" in f]
    assert any(f.endswith("/nrf/entrypoints/cli.py") for f in package)
    assert not [f for f in files if f.endswith("__editable__.nrf-0.1.0.pth")]


# Where our build could leave anything: the runtime stage copies /app/.venv and adds a user.
# (The base's own files, such as the wheels ensurepip installs from, are the base's.)
OURS = re.compile(r"^/(app|root|home|tmp)/")


def test_no_build_tool_or_cache_ships(files: list[str]) -> None:
    assert not [f for f in files if re.search(r"/bin/uvx?$", f)], "uv is in the runtime image"
    ours = [f for f in files if OURS.match(f)]
    caches = [f for f in ours if re.search(r"/(\.cache|pip-cache|\.uv-cache)(/|$)", f)]
    assert caches == [], caches[:10]
    assert not [f for f in ours if f.endswith(".whl")]
    assert not [f for f in ours if re.search(r"/site-packages/(setuptools|uv|pip)/", f)]
    assert [f for f in files if f.startswith("/tmp/")] == []


LIST_FILES = (
    "import os\n"
    "for d, _, names in os.walk('/context'):\n"
    "    for n in names: print(os.path.relpath(os.path.join(d, n), '/context'))\n"
)


def context_files(client: Any, image: Any, workdir: Path) -> list[str]:
    """The files a build of this working tree sends the engine (after .dockerignore)."""
    dockerfile = workdir / "context.Dockerfile"  # outside the context: sent on its own
    dockerfile.write_text(f"FROM {image.id}\nCOPY . /context/\n")
    built, _ = client.images.build(
        path=str(ROOT), dockerfile=str(dockerfile), rm=True, network_mode="host"
    )
    try:
        output = client.containers.run(
            built.id, ["-c", LIST_FILES], entrypoint=["python"], remove=True, network_mode="host"
        ).decode()
    finally:
        client.images.remove(built.id, force=True)
    # docker-py sends a Dockerfile from outside the context under a made-up name.
    return [line for line in output.splitlines() if not line.startswith(".dockerfile.")]


def test_the_build_context_is_only_what_the_dockerfile_copies(
    client: Any, image: Any, tmp_path: Path
) -> None:
    sent = sorted(context_files(client, image, tmp_path))
    assert sent, "nothing was sent"
    others = [f for f in sent if f not in CONTEXT and not f.startswith("src/")]
    assert others == [], others[:20]
    assert not [f for f in sent if "__pycache__" in f or f.endswith(".pyc") or ".egg-info" in f]
    assert "src/nrf/entrypoints/cli.py" in sent
