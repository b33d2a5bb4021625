"""Load on `nrf serve` from this machine: quotes/s and latency percentiles, boundary checks, report.

Starts the real server (gunicorn, default workers and threads) on a free loopback port, then
runs client processes that each keep one connection open and send requests back to back for a
fixed time. The clients share the machine's cores with the server, so the figures are a floor.
Bounded: every phase stops after its duration; only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from nrf.adapters.boundary_data.packaged import bundled_samples
from nrf.adapters.outputs.html_report import render_report
from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import validate_features
from nrf.entrypoints.roots.core import Core, build

SMALL = (
    bundled_samples() / "BnW_small_under_1_hectare_geojson" / "BnW_small_under_1_hectare.geojson"
)
BNW = bundled_samples() / "BnW_cleaned_110925" / "BnW_cleaned_110925.shp"
KEY = "bench-key-0123456789abcdef"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _client(port: int, path: str, body: bytes, seconds: float, interval: float, out: Any) -> None:
    """Back to back (``interval`` 0), or one request per ``interval`` s on a fixed schedule.

    On a schedule, latency runs from when the request was due, not when it went out, so a
    slow server is not flattered by the client waiting for it (coordinated omission).
    """
    headers = {"Content-Type": "application/geo+json", "x-api-key": KEY}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies, errors, lost = [], 0, []
    begin = time.perf_counter()
    deadline = begin + seconds
    sent = 0
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        if interval:
            due = begin + sent * interval
            if due > started:
                time.sleep(due - started)
            started = due
        sent += 1
        try:
            status = _post(connection, path, body, headers)
        except (http.client.RemoteDisconnected, ConnectionError):
            lost.append((time.perf_counter() - started) * 1000)
            # The server may close a kept-alive connection between requests (a process
            # replaced after its max_requests): a client then sends again on a new one, as
            # urllib3 does; the time of both attempts counts.
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status = _post(connection, path, body, headers)
        latencies.append((time.perf_counter() - started) * 1000)
        errors += status != 200
    connection.close()
    out.put((latencies, errors, lost))


def _post(
    connection: http.client.HTTPConnection, path: str, body: bytes, headers: dict[str, str]
) -> int:
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    return response.status


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))], 2)


def phase(
    port: int, path: str, body: bytes, clients: int, seconds: float, rate: float = 0.0
) -> dict[str, Any]:
    """``clients`` processes for ``seconds``; with ``rate`` (requests/s in all) on a schedule."""
    interval = clients / rate if rate else 0.0
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    procs = [
        context.Process(target=_client, args=(port, path, body, seconds, interval, out))
        for _ in range(clients)
    ]
    started = time.perf_counter()
    for proc in procs:
        proc.start()
    results = [out.get(timeout=seconds + 60) for _ in procs]
    for proc in procs:
        proc.join()
    elapsed = time.perf_counter() - started
    latencies = [ms for found, _, _ in results for ms in found]
    return {
        "path": path,
        "target_rate": rate or None,
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": len(latencies),
        "errors": sum(e for _, e, _ in results),
        # Requests sent again on a new connection, and the longest wait for the lost answer.
        "reconnects": sum(len(lost) for _, _, lost in results),
        "lost_answer_max_ms": round(
            max((ms for _, _, lost in results for ms in lost), default=0), 1
        ),
        "per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
        "p99_ms": percentile(latencies, 99),
    }


def report_timing(repeats: int = 5) -> dict[str, Any]:
    """Rendering the 245-site sample's report (maps included), assessment excluded."""
    container = build(Core)
    repository = container.boundary_data()
    developments = validate_features(read_boundary_file(BNW))
    run = container.assess_developments()(developments, rule_set_named(None), date(2026, 11, 26))
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        page = render_report(run, developments, repository.reference_for)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "sites": len(developments),
        "median_ms": round(sorted(times)[len(times) // 2], 1),
        "max_ms": round(max(times), 1),
        "bytes": len(page.encode()),
    }


def start_server(port: int, log: Any, settings: Sequence[str] = ()) -> subprocess.Popen[bytes]:
    """``settings``: NAME=VALUE pairs added to the server's environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NRF_", "AWS_"))}
    env["NRF_API_KEYS"] = KEY
    env["NRF_ALLOW_SYNTHETIC_DATA"] = "true"  # the bundled demo bundle
    # The shipped rate limits stay on (their defaults sit above what two cores can serve), so
    # the figure is what a client of a deployed task would see.
    for item in settings:
        name, _, value = item.partition("=")
        env[name] = value
    argv = [sys.executable, "-m", "nrf.entrypoints.cli", "serve", "--bind", f"127.0.0.1:{port}"]
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/ready")
            if connection.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("nrf serve did not become ready")


def server_side(log: Path, path: str, since: float, until: float) -> dict[str, Any]:
    """Percentiles of the server's own handling time (the access log's ``duration_ms``)."""
    durations = []
    for line in log.read_text().splitlines():
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if entry.get("path") == path and since <= entry.get("ts", 0) <= until:
            durations.append(float(entry["duration_ms"]))
    if not durations:
        return {}
    return {"server_p50_ms": percentile(durations, 50), "server_p99_ms": percentile(durations, 99)}


def timed_phase(log: Path, port: int, path: str, *args: Any) -> dict[str, Any]:
    since = time.time()
    figures = phase(port, path, *args)
    return {**figures, **server_side(log, path, since, time.time())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rate", type=float, default=300.0, help="quotes/s for the paced phase")
    parser.add_argument("--check-rate", type=float, default=100.0, help="boundary checks/s")
    parser.add_argument("--out", default="benchmarks/results/api.json")
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE", help="a server setting"
    )
    args = parser.parse_args(argv)
    port = _free_port()
    log = Path(tempfile.mkdtemp(prefix="nrf-bench-api-")) / "serve.log"
    with log.open("wb") as output:
        server = start_server(port, output, args.env)
    try:
        body = SMALL.read_bytes()
        phase(port, "/v1/quotes", body, args.clients, 2.0)  # warm-up, discarded
        figures = {
            "quotes_max": timed_phase(log, port, "/v1/quotes", body, args.clients, args.seconds),
            "quotes_at_rate": timed_phase(
                log, port, "/v1/quotes", body, args.clients, args.seconds, args.rate
            ),
            "boundary_checks_at_rate": timed_phase(
                log, port, "/v1/boundary-checks", body, 2, args.seconds / 2, args.check_rate
            ),
            "report_245_sites": report_timing(),
            "cpus": os.cpu_count(),
        }
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
