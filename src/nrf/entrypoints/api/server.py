"""`nrf serve`: check the settings, then become gunicorn serving the quote API.

Worker class gthread: idle keep-alive connections wait in the worker's poller, not in a thread,
so a client that connects and says nothing holds no thread; a client that trickles its body is
cut off by the body deadline (``body.py``). The sync worker would let one such client hold a
whole process; an async worker (gevent) would add a dependency and monkey-patching for nothing,
since an assessment is CPU work that no event loop can interleave.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from nrf.entrypoints.api.config import ApiSettings, load_api_settings
from nrf.entrypoints.settings import load_settings

APP = "nrf.entrypoints.api.app:get_app()"


def gunicorn_command(bind: str, api: ApiSettings, python: str = sys.executable) -> list[str]:
    """The argv of the API server on ``bind`` (``host:port``)."""
    return [
        python,
        "-m",
        "gunicorn",
        "--bind",
        bind,
        "--worker-class",
        "gthread",
        "--workers",
        str(api.workers),
        "--threads",
        str(api.threads),
        # A worker whose main loop stops for this long is replaced (the loop, not a request).
        "--timeout",
        "30",
        "--graceful-timeout",
        "10",
        "--keep-alive",
        "5",
        "--limit-request-line",
        "8190",
        "--limit-request-fields",
        "64",
        "--log-level",
        "warning",
        "--error-logfile",
        "-",
        APP,
    ]


def run_server(bind: str, environ: Mapping[str, str]) -> int:
    """Refuse bad settings (exit 2, every problem named); bind the port and settle the pinned
    bundle as the worker does (exit 3, or 4 for synthetic data, one JSON line with the code);
    then exec gunicorn in our place on the bound socket, serving the verified local copy."""
    from nrf.entrypoints.api.startup import announce, bind_port, settle_bundle
    from nrf.entrypoints.logging_setup import configure_logging
    from nrf.entrypoints.settings import ConfigError

    try:
        api = load_api_settings(environ)
        settings = load_settings(environ)
    except ConfigError as exc:
        for problem in exc.problems:
            print(f"error: bad_configuration: {problem}", file=sys.stderr)
        return 2
    configure_logging(secrets=[*api.keys, settings.notify_api_key or ""])
    bound = bind_port(bind)
    if isinstance(bound, int):
        return bound
    settled = settle_bundle(settings)
    if isinstance(settled, int):
        return settled
    announce(bound, settled)
    env = {**environ, "NRF_REFERENCE_DATA": str(settled.reference_data)}
    argv = gunicorn_command(bound.gunicorn_bind, api)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(argv[0], argv, env)
    return 0  # not reached
