"""The shipped image, run as ECS runs it, through testcontainers: its JSON log read as it comes.

The image is never pulled: ``scripts/image`` builds it from the working tree (tag ``nrf:test``),
and a missing engine or image fails the test with what to run, rather than skipping it.
Testcontainers runs without Ryuk (its reaper is an image from a registry); each container is
removed, with its volumes, when its block ends. Every container is on the host network and is
spoken to on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

IMAGE = os.environ.get("NRF_TEST_IMAGE", "nrf:test")
BUILD_HINT = "run scripts/image (as root it installs Docker, starts dockerd and builds nrf:test)"
NANOSECONDS = 1_000_000_000


def docker_client() -> Any:
    """The engine's client; fails (never skips) when none answers."""
    import docker

    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as exc:  # the SDK raises several types for "no engine"
        raise AssertionError(f"no Docker engine answers ({exc!s:.200}): {BUILD_HINT}") from exc
    return client


def require_image(client: Any, image: str = IMAGE) -> Any:
    """The locally built image; fails rather than pull one."""
    import docker

    try:
        return client.images.get(image)
    except docker.errors.ImageNotFound as exc:
        raise AssertionError(f"image {image} is not built: {BUILD_HINT}") from exc


def without_ryuk() -> None:
    """Testcontainers' reaper would be pulled from a registry: containers are removed here."""
    os.environ["TESTCONTAINERS_RYUK_DISABLED"] = "true"
    from testcontainers.core.config import testcontainers_config

    testcontainers_config.ryuk_disabled = True


class ContainerLog:
    """Both streams of a container, line by line: JSON objects kept as events, the rest apart."""

    def __init__(self, container: Any) -> None:
        self.events: list[dict[str, Any]] = []
        self.not_json: list[str] = []
        self.lines = 0
        self._changed = threading.Condition()
        self._readers = [
            threading.Thread(target=self._pump, args=(container, stream), daemon=True)
            for stream in ("stdout", "stderr")
        ]
        for reader in self._readers:
            reader.start()

    def _pump(self, container: Any, stream: str) -> None:
        chunks = container.logs(
            stdout=stream == "stdout", stderr=stream == "stderr", stream=True, follow=True
        )
        pending = b""
        for chunk in chunks:
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                self._take(line.decode("utf-8", "replace"))
        if pending:
            self._take(pending.decode("utf-8", "replace"))

    def _take(self, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        with self._changed:
            self.lines += 1
            if isinstance(event, dict):
                self.events.append(event)
            else:
                self.not_json.append(line)
            self._changed.notify_all()

    def matching(self, event: str, **fields: Any) -> list[dict[str, Any]]:
        with self._changed:
            return [
                e
                for e in self.events
                if e.get("event") == event and all(e.get(k) == v for k, v in fields.items())
            ]

    def wait_for(self, event: str, timeout: float, nth: int = 1, **fields: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = self.matching(event, **fields)
                if len(found) >= nth:
                    return found[nth - 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"no {event!r} (#{nth}) with {fields} within {timeout} s\n{self.tail()}"
                    )
                self._changed.wait(min(left, 0.2))

    def finish(self, timeout: float = 10) -> None:
        """Wait for the streams to end (they do when the container stops)."""
        for reader in self._readers:
            reader.join(timeout)

    def tail(self, last: int = 40) -> str:
        with self._changed:
            return "\n".join([json.dumps(e) for e in self.events[-last:]] + self.not_json[-last:])


@contextmanager
def running_image(
    env: Mapping[str, str],
    command: Sequence[str] = ("worker",),
    *,
    read_only: bool = True,
    writable: Sequence[str] = ("/tmp",),
    healthcheck: Mapping[str, int] | None = None,
) -> Iterator[tuple[Any, ContainerLog]]:
    """The image with only ``env`` (nothing of this process's environment), as its own user.

    ``read_only`` and ``writable`` (a tmpfs at each path) are how the templates run it;
    ``healthcheck`` changes only the image's HEALTHCHECK timings (its command stays).
    """
    without_ryuk()
    from testcontainers.core.container import DockerContainer

    require_image(docker_client())
    options: dict[str, Any] = {"network_mode": "host", "read_only": read_only}
    if healthcheck is not None:
        options["healthcheck"] = dict(healthcheck)
    container = DockerContainer(IMAGE).with_command(list(command)).with_kwargs(**options)
    for path in writable:
        container.with_tmpfs_mount(path)
    for key, value in env.items():
        container.with_env(key, value)
    with container:
        wrapped = container.get_wrapped_container()
        log = ContainerLog(wrapped)
        try:
            yield wrapped, log
        finally:
            log.finish(timeout=2)


def health_status(container: Any) -> str:
    container.reload()
    return str(container.attrs["State"].get("Health", {}).get("Status", "none"))


def wait_for_health(container: Any, status: str, timeout: float) -> float:
    """Seconds until the image's HEALTHCHECK reports ``status``; fails past ``timeout``."""
    started = time.monotonic()
    seen = ""
    while time.monotonic() - started < timeout:
        seen = health_status(container)
        if seen == status:
            return time.monotonic() - started
        time.sleep(0.25)
    raise AssertionError(f"health stayed {seen!r}, not {status!r}, for {timeout} s")


def fast_healthcheck(interval: float = 1, retries: int = 2) -> dict[str, int]:
    """The image's HEALTHCHECK command on a test's clock (the engine keeps the image's test)."""
    return {
        "interval": int(interval * NANOSECONDS),
        "timeout": 5 * NANOSECONDS,
        "retries": retries,
        "start_period": 60 * NANOSECONDS,
    }
