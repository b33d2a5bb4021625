"""`python -m benchmarks.keyless_storm`: the memory and restart attacks of issue 31, measured.

Two attacks against `nrf serve` with its defaults (2 processes, replaced after 1,000 requests
plus up to 10 %, the default rate limits), each bounded and on loopback only:

- keyless bodies: ``--bodies`` GET, HEAD and OPTIONS requests (30) with a 40 MiB body each,
  sent but for their last byte and held open together; the resident memory of every server
  process is read before, while they are held, and after they are closed.
- a restart storm: ``--storm`` GETs of /health (3,000, exempt from the rate limits, as an
  attacker's cheapest request that reaches the app) from 4 threads, as fast as they are
  answered, while /health is probed every 0.25 s with a 1 s client timeout; counted are the
  probes that failed or took over 1 s, the processes replaced and the longest gap between two
  answered probes.

Run it against another source tree (the code before a change) with ``PYTHONPATH=OLD/src``:
it uses nothing of nrf's own beyond starting `nrf serve`. Results go to
benchmarks/results/keyless_storm.{json,md} (``--label`` names the run).
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the servers and raw clients, as the tests use them

from support.api_server import running_server, serve_env  # noqa: E402
from support.raw_http import children_rss, log_events, send_all_but_the_last_byte  # noqa: E402

MIB = 1024 * 1024
RESULTS = ROOT / "benchmarks" / "results"
PROBE_EVERY, PROBE_TIMEOUT = 0.25, 1.0


def mib_by_process(parent: int) -> dict[str, int]:
    return {str(pid): rss // MIB for pid, rss in sorted(children_rss(parent).items())}


def keyless_bodies(port: int, parent: int, count: int) -> dict[str, Any]:
    before = mib_by_process(parent)
    held: list[socket.socket | None] = []
    try:
        for n in range(count):
            method = ("GET", "HEAD", "OPTIONS")[n % 3]
            head = f"{method} /health HTTP/1.1\r\nHost: x\r\nContent-Length: {40 * MIB}\r\n\r\n"
            held.append(send_all_but_the_last_byte(port, head.encode(), 40 * MIB))
        during = mib_by_process(parent)
    finally:
        for sock in held:
            if sock is not None:
                sock.close()
    time.sleep(2)
    return {
        "bodies": count,
        "refused_unread": sum(1 for sock in held if sock is None),
        "rss_mib_before": before,
        "rss_mib_while_held": during,
        "rss_mib_after": mib_by_process(parent),
    }


def probe(port: int) -> float | None:
    """Seconds for one GET /health, or None when it failed or took over the timeout."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT)
    try:
        connection.request("GET", "/health")
        response = connection.getresponse()
        response.read()
        return time.monotonic() - started if response.status == 200 else None
    except OSError:
        return None
    finally:
        connection.close()


def storm(port: int, log: Path, requests: int) -> dict[str, Any]:
    probes: list[tuple[float, float | None]] = []
    errors: list[str] = []
    stop = threading.Event()
    left = iter(range(requests))
    lock = threading.Lock()

    def prober() -> None:
        while not stop.wait(PROBE_EVERY):
            probes.append((time.monotonic(), probe(port)))

    def attacker() -> None:
        while True:
            with lock:
                if next(left, None) is None:
                    return
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                connection.request("GET", "/health")
                connection.getresponse().read()
            except OSError as exc:
                errors.append(type(exc).__name__)
            finally:
                connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=prober)] + [
        threading.Thread(target=attacker) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads[1:]:
        thread.join()
    time.sleep(8)  # probes go on while the last replacements load the bundle
    stop.set()
    threads[0].join()
    answered = [at for at, seconds in probes if seconds is not None]
    gaps = [b - a for a, b in itertools.pairwise(answered)]
    replaced = [e for e in log_events(log) if e.get("event") == "worker_recycled"]
    return {
        "requests": requests,
        "seconds": round(time.monotonic() - started, 1),
        "attack_errors": len(errors),
        "attack_error_kinds": sorted(set(errors)),
        "probes": len(probes),
        "probes_failed": sum(1 for _, seconds in probes if seconds is None),
        "worst_probe_s": round(max((s for _, s in probes if s is not None), default=0.0), 3),
        "longest_gap_s": round(max(gaps, default=0.0), 2),
        "replacements_logged": len(replaced),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=30)
    parser.add_argument("--storm", type=int, default=3000)
    parser.add_argument("--label", default="current")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        env = serve_env(Path(folder) / "results", NRF_API_WORKERS="2")
        for name in ("NRF_API_RATE_PER_CLIENT", "NRF_API_RATE_PER_KEY"):
            env.pop(name)  # the defaults, as deployed
        log = Path(folder) / "serve.log"
        with running_server(env, log) as server:
            bodies = keyless_bodies(server.port, server.pid, args.bodies)
        with running_server(env, log) as server:
            restarts = storm(server.port, log, args.storm)
    result = {
        "label": args.label,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "keyless_bodies": bodies,
        "restart_storm": restarts,
    }
    print(json.dumps(result, indent=2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"keyless_storm-{args.label}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
