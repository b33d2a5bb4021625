"""The real `nrf worker` as a subprocess, with its JSON log events collected for assertions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import IO, Any

Event = dict[str, Any]


class WorkerProcess:
    """Starts ``nrf <args>`` in its own process group; ``close()`` kills the whole group."""

    def __init__(self, env: Mapping[str, str], args: Sequence[str] = ("worker",)) -> None:
        self.argv = [sys.executable, "-m", "nrf.entrypoints.cli", *args]
        self.env = dict(env)
        self.events: list[Event] = []
        self.other_lines: list[str] = []  # stderr lines that are not JSON (tracebacks, gunicorn)
        self.stdout_lines: list[str] = []  # EMF metric records
        self._changed = threading.Condition()
        self._process: subprocess.Popen[str] | None = None
        self._readers: list[threading.Thread] = []

    @property
    def process(self) -> subprocess.Popen[str]:
        assert self._process is not None, "not started"
        return self._process

    def start(self) -> WorkerProcess:
        self._process = subprocess.Popen(
            self.argv,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own group, so teardown can kill every descendant
        )
        assert self._process.stderr is not None and self._process.stdout is not None
        for stream, sink in (
            (self._process.stderr, self._on_stderr),
            (self._process.stdout, self.stdout_lines.append),
        ):
            reader = threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
            reader.start()
            self._readers.append(reader)
        return self

    def _pump(self, stream: IO[str], sink: Callable[[str], None]) -> None:
        for line in stream:
            with self._changed:
                sink(line.rstrip("\n"))
                self._changed.notify_all()

    def _on_stderr(self, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if isinstance(event, dict) and "event" in event:
            self.events.append(event)
        else:
            self.other_lines.append(line)

    # -- looking at the log ---------------------------------------------------------------

    def matching(self, event: str, **fields: Any) -> list[Event]:
        with self._changed:
            return [e for e in self.events if e.get("event") == event and _has(e, fields)]

    def count(self, event: str, **fields: Any) -> int:
        return len(self.matching(event, **fields))

    def wait_for(self, event: str, timeout: float = 30, nth: int = 1, **fields: Any) -> Event:
        """The ``nth`` event of that name whose fields match; fails with the log on timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [e for e in self.events if e.get("event") == event and _has(e, fields)]
                if len(found) >= nth:
                    return found[nth - 1]
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self._reading()):
                    raise AssertionError(
                        f"no {event!r} (#{nth}) with {fields} within {timeout} s; "
                        f"exit code {self.process.poll()}\n{self.transcript()}"
                    )
                self._changed.wait(min(left, 0.2))

    def _reading(self) -> bool:
        return any(reader.is_alive() for reader in self._readers)

    def transcript(self, last: int = 60) -> str:
        """The tail of the log, for failure messages."""
        with self._changed:
            lines = [json.dumps(e) for e in self.events[-last:]] + self.other_lines[-last:]
        return "\n".join(lines)

    def pid_of_worker_process(self) -> int:
        """The pid of the current worker process (the supervisor's latest child)."""
        return int(self.wait_for("worker_process_started", nth=1 + self._restarts())["pid"])

    def _restarts(self) -> int:
        return max(0, self.count("worker_process_started") - 1)

    # -- stopping -------------------------------------------------------------------------

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Signal the supervisor and wait for its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.wait(timeout)

    def wait(self, timeout: float = 60) -> int:
        code = self.process.wait(timeout)
        for reader in self._readers:
            reader.join(5)
        return code

    def close(self) -> None:
        """Kill the process group (supervisor, worker, job and health processes) if still there."""
        if self._process is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)
        with suppress(subprocess.TimeoutExpired):
            self._process.wait(10)
        for reader in self._readers:
            reader.join(2)


def _has(event: Event, fields: Mapping[str, Any]) -> bool:
    return all(event.get(k) == v for k, v in fields.items())


@contextmanager
def running_worker(
    env: Mapping[str, str], args: Sequence[str] = ("worker",)
) -> Iterator[WorkerProcess]:
    worker = WorkerProcess(env, args).start()
    try:
        yield worker
    finally:
        worker.close()
