"""`python -m benchmarks.api_profile`: where a quote's CPU goes in one API process, and a start's.

Builds the app as a gunicorn worker does (``get_gate``, the bundled synthetic bundle), then
sends ``--quotes`` quotes of the 0.03 ha sample through the gate's ASGI entry in one event loop
(the body is handed over whole, so no socket is involved): the CPU per quote of the whole
process, then the same again under cProfile (the app's thread only) with its top entries.
``--starts`` times instead what a new worker process spends before its first request (imports,
the container, the bundle opened and hashed), in fresh interpreters.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.api_load import KEY, SMALL

_START = """
import time
started = time.process_time()
import nrf.entrypoints.api.app as app
imported = time.process_time()
app.get_gate()
done = time.process_time()
print(f"{1000 * (imported - started):.0f} {1000 * (done - imported):.0f}")
"""


def _environ() -> dict[str, str]:
    from nrf.adapters.boundary_data.packaged import bundled_reference_data

    env = {k: v for k, v in os.environ.items() if not k.startswith(("NRF_", "AWS_"))}
    env.update(
        NRF_API_KEYS=KEY,
        NRF_ALLOW_SYNTHETIC_DATA="true",
        NRF_REFERENCE_DATA=str(bundled_reference_data()),
    )
    return env


def _scope(body: bytes) -> dict[str, Any]:
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/geo+json"),
        (b"x-api-key", KEY.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    return {
        "type": "http",
        "method": "POST",
        "path": "/v1/quotes",
        "raw_path": b"/v1/quotes",
        "query_string": b"",
        "headers": headers,
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "http_version": "1.1",
    }


async def _quotes(gate: Any, body: bytes, count: int) -> None:
    scope = _scope(body)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    for _ in range(count):
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any], sent: list[dict[str, Any]] = sent) -> None:
            sent.append(message)

        await gate(scope, receive, send)
        if sent[0]["status"] != 200:
            raise RuntimeError(f"quote refused: {sent}")


def profile_quotes(count: int, top: int) -> None:
    os.environ.update(_environ())
    from nrf.adapters.http_server import gate as gate_module
    from nrf.entrypoints.api.app import get_gate

    gate = get_gate()
    body = SMALL.read_bytes()
    asyncio.run(_quotes(gate, body, 50))  # warm
    started = time.process_time()
    asyncio.run(_quotes(gate, body, count))
    cpu = (time.process_time() - started) * 1000 / count
    print(f"{count} quotes: {cpu:.3f} ms of CPU each (the whole process, no profiler)")
    profiler = cProfile.Profile()
    call_wsgi = gate_module.call_wsgi

    def profiled(app: Any, environ: dict[str, Any]) -> Any:
        profiler.enable()
        try:
            return call_wsgi(app, environ)
        finally:
            profiler.disable()

    gate_module.call_wsgi = profiled
    asyncio.run(_quotes(gate, body, count))
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def time_starts(count: int) -> None:
    env = _environ()
    for _ in range(count):
        out = subprocess.run(
            [sys.executable, "-c", _START],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent.parent,
        ).stdout.split()
        print(f"start: imports {out[-2]} ms of CPU, get_gate {out[-1]} ms of CPU")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quotes", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--starts", type=int, default=0, help="time this many process starts")
    args = parser.parse_args(argv)
    if args.starts:
        time_starts(args.starts)
    else:
        profile_quotes(args.quotes, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
