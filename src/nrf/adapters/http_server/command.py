"""The gunicorn argv for one of our servers: its timings come from the same HttpLimits record."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from nrf.adapters.http_server.limits import HttpLimits

WORKER_CLASS = "nrf.adapters.http_server.worker.HypercornWorker"


def server_command(
    app: str,
    bind: str,
    limits: HttpLimits,
    *,
    workers: int = 1,
    env: Sequence[str] = (),
    python: str = sys.executable,
) -> list[str]:
    """``app`` is a factory returning a Gate built with the same ``limits``."""
    argv = [
        python,
        "-m",
        "gunicorn",
        "--bind",
        bind,
        "--worker-class",
        WORKER_CLASS,
        "--workers",
        str(workers),
        "--backlog",
        str(limits.backlog),
        "--timeout",
        str(limits.silent_seconds),
        "--graceful-timeout",
        str(limits.graceful_seconds),
        "--max-requests",
        str(limits.max_requests),
        "--max-requests-jitter",
        str(limits.max_requests_jitter),
        "--log-level",
        "warning",
        "--error-logfile",
        "-",
        # gunicorn 25.1+ opens a control socket for gunicornc under $HOME (or XDG_RUNTIME_DIR);
        # nothing here uses it, and where it cannot (the image's user has no home) it logs a
        # plain-text ERROR line at every start, among the JSON ones.
        "--no-control-socket",
    ]
    for item in env:
        argv += ["--env", item]
    return [*argv, app]
