"""`nrf demo`: moto's SQS server, the real worker and its health server, the samples as jobs.

Over 200 lines: the demo starts, feeds and reports on its servers in one readable script.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from nrf.adapters.terminal import demo_report
from nrf.entrypoints.exit_codes import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK

QUEUE = "nrf_demo_queue"
DEMO_EMAIL = "planner@demo.example.gov.uk"
# moto accepts any credentials; these only keep boto3 from looking for real ones.
FAKE_KEYS = {"AWS_ACCESS_KEY_ID": "demo", "AWS_SECRET_ACCESS_KEY": "demo"}
REGION = "eu-west-2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class WorkerLog:
    """Reads the worker's JSON log lines in a thread; keeps the events and the raw tail."""

    def __init__(self, stream: IO[str]) -> None:
        self.events: list[dict[str, Any]] = []
        self.tail: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            with self._lock:
                self.tail = [*self.tail[-40:], line.rstrip()]
                if isinstance(event, dict):
                    self.events.append(event)

    def named(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e.get("event") == name]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except OSError as exc:
        return 0, f"unreachable ({exc})"


def _progress(done: int, total: int, elapsed: float, final: bool = False) -> None:
    text = f"jobs done {done}/{total}, {elapsed:.1f} s elapsed"
    if sys.stderr.isatty():
        print(f"\r{text}", end="\n" if final else "", file=sys.stderr, flush=True)
    else:
        print(text, file=sys.stderr, flush=True)


class Demo:
    """Everything the demo starts, so that ``stop()`` can end all of it."""

    def __init__(self, results: Path, concurrency: int, say: Callable[[str], None]) -> None:
        self.results, self.concurrency, self.say = results, concurrency, say
        self.moto: Any = None
        self.worker: subprocess.Popen[str] | None = None
        self.log: WorkerLog | None = None
        self.health_port = free_port()

    def start_sqs(self) -> Any:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
        self.moto = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
        self.moto.start()
        host, port = self.moto.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"
        import boto3

        sqs = boto3.client(
            "sqs",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id="demo",
            aws_secret_access_key="demo",
        )
        dlq = sqs.create_queue(QueueName=f"{QUEUE}_dlq")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])
        policy = {"deadLetterTargetArn": arn["Attributes"]["QueueArn"], "maxReceiveCount": "3"}
        url = sqs.create_queue(QueueName=QUEUE, Attributes={"RedrivePolicy": json.dumps(policy)})
        self.say(f"local SQS (moto) at {self.endpoint}: queue {QUEUE} with {QUEUE}_dlq")
        return sqs, url["QueueUrl"]

    def start_worker(self, timeout: float = 180) -> None:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GOVUK_"))}
        env = {
            **keep,
            **FAKE_KEYS,
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_REGION": REGION,
            "AWS_SQS_QUEUE_NAME": QUEUE,
            "AWS_SQS_WAIT_TIME_SECONDS": "1",
            "AWS_SQS_MAX_MESSAGES": str(self.concurrency),
            "WORKER_CONCURRENCY": str(self.concurrency),
            "NRF_NOTIFIER": "log",
            "NRF_RESULT_STORE": "local",
            "NRF_RESULTS_DIR": str(self.results),
            "AWS_HEALTH_PORT": str(self.health_port),
            "NRF_HEALTH_HOST": "127.0.0.1",
            "PYTHONUNBUFFERED": "1",
            # The demo quotes from the bundled synthetic data, which a worker otherwise refuses.
            "NRF_ALLOW_SYNTHETIC_DATA": "true",
        }
        command = [sys.executable, "-m", "nrf.entrypoints.cli", "worker"]
        self.worker = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert self.worker.stderr is not None
        self.log = WorkerLog(self.worker.stderr)
        self.say(f"started nrf worker (pid {self.worker.pid}); health on port {self.health_port}")
        deadline = time.monotonic() + timeout
        while not self.log.named("worker_started"):
            if self.worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the worker did not start:\n" + "\n".join(self.log.tail))
            time.sleep(0.2)

    def wait_for_jobs(self, job_ids: list[str], timeout: float) -> set[str]:
        assert self.log is not None and self.worker is not None
        wanted, started, shown = set(job_ids), time.monotonic(), -1
        done: set[str] = set()
        while True:
            done = {str(e.get("job_id")) for e in self.log.named("job_finished")} & wanted
            elapsed = time.monotonic() - started
            if len(done) != shown or sys.stderr.isatty():
                _progress(len(done), len(wanted), elapsed, final=done == wanted)
                shown = len(done)
            if done == wanted or elapsed > timeout or self.worker.poll() is not None:
                return done
            time.sleep(0.5)

    def health(self) -> dict[str, tuple[int, str]]:
        base = f"http://127.0.0.1:{self.health_port}"
        return {path: _get(base + path) for path in ("/health", "/ready")}

    def stop(self) -> int | None:
        """Stop the worker (SIGTERM, as ECS would) and the SQS server; the worker's exit code."""
        code = None
        if self.worker is not None:
            if self.worker.poll() is None:
                self.worker.send_signal(signal.SIGTERM)
            try:
                code = self.worker.wait(60)
            except subprocess.TimeoutExpired:
                self.worker.kill()
                code = self.worker.wait(10)
        if self.moto is not None:
            self.moto.stop()
        return code


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_demo(
    results: Path, limit: int | None = None, concurrency: int = 2, timeout: float = 900
) -> int:
    """Run the sample sites through a real local worker; 0 when every job was answered."""
    from nrf.adapters.boundary_data.packaged import bundled_samples
    from nrf.adapters.job_queue.job_submission import job_messages
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
    from nrf.domain.validation import validate_features

    try:
        import moto.server  # noqa: F401
    except ImportError:
        _say("error: nrf demo needs moto's standalone server: pip install 'moto[server]'")
        return EXIT_ERROR
    shapefile = bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
    developments = validate_features(read_boundary_file(shapefile))[:limit]
    results.mkdir(parents=True, exist_ok=True)
    # A fresh prefix per run: a job id seen before would (rightly) not be computed again.
    prefix = f"demo-{time.strftime('%Y%m%d%H%M%S')}"
    demo = Demo(results, concurrency, _say)
    # `docker stop` or `kill` ends the demo the same way as Ctrl-C: through the clean-up below.
    signal.signal(signal.SIGTERM, _interrupt)
    finished: set[str] = set()
    job_ids: list[str] = []
    try:
        sqs, url = demo.start_sqs()
        demo.start_worker()
        for job_id, body in job_messages(developments, prefix, DEMO_EMAIL):
            sqs.send_message(QueueUrl=url, MessageBody=body)
            job_ids.append(job_id)
        _say(f"submitted {len(job_ids)} Broads & Wensum sample sites as jobs ({prefix}-*)")
        finished = demo.wait_for_jobs(job_ids, timeout)
        health = demo.health()
        assert demo.log is not None
        notices = [e for e in demo.log.named("notification_logged") if e.get("job_id") in job_ids]
        print(demo_report.results_table([demo_report.stored_job_row(results, j) for j in job_ids]))
        print(
            f"\nresults stored under {results.resolve()}/<job id>/ "
            "(result.json, .csv, .geojson, .html - the report -, .provenance.json, "
            "status.json)"
        )
        print("\n" + demo_report.notifications_summary(notices))
        print("\nhealth server while running:\n" + demo_report.health_lines(health))
    except KeyboardInterrupt:
        _say("interrupted; stopping everything the demo started")
        return EXIT_INTERRUPTED
    finally:
        code = demo.stop()
        _say(f"stopped the worker (exit code {code}) and the local SQS server")
    missing = len(job_ids) - len(finished)
    if missing:
        _say(f"error: {missing} jobs did not finish")
    return EXIT_OK if not missing and code == 0 else EXIT_ERROR
