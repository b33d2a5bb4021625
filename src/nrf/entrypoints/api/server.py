"""`nrf serve`: check the settings, then become gunicorn serving the quote API.

gunicorn runs the processes; each serves with hypercorn on asyncio (``http_server/``), so a
client that connects and says nothing, or trickles its headers or body, holds a socket until
its deadline and never a thread. The limits are ``config.http_limits``; docs/security.md
explains the choice and lists them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from nrf.adapters.environment.settings import load_settings
from nrf.adapters.http_server.command import server_command
from nrf.entrypoints.api.config import ApiSettings, http_limits, load_api_settings
from nrf.entrypoints.exit_codes import EXIT_USAGE

APP = "nrf.entrypoints.api.app:get_gate()"


def api_gunicorn_command(
    bind: str, api: ApiSettings, max_file_bytes: int, python: str = sys.executable
) -> list[str]:
    """The argv of the API server on ``bind`` (``host:port``, or ``fd://N`` for a bound socket)."""
    limits = http_limits(api, max_file_bytes)
    return server_command(APP, bind, limits, workers=api.workers, python=python)


def run_server(bind: str, environ: Mapping[str, str]) -> int:
    """Refuse bad settings (exit 2, every problem named); bind the port and verify the pinned
    bundle as the worker does (exit 3, or 4 for synthetic data, one JSON line with the code);
    then exec gunicorn in our place on the bound socket, serving the verified local copy."""
    from nrf.adapters.environment.settings import ConfigError
    from nrf.adapters.telemetry.logging_setup import configure_logging
    from nrf.entrypoints.api.startup import announce, bind_port, verify_bundle

    try:
        api = load_api_settings(environ)
        settings = load_settings(environ)
    except ConfigError as exc:
        for problem in exc.problems:
            print(f"error: bad_configuration: {problem}", file=sys.stderr)
        return EXIT_USAGE
    configure_logging(secrets=[*api.keys, settings.notify_api_key or ""])
    bound = bind_port(bind)
    if isinstance(bound, int):
        return bound
    verified = verify_bundle(settings)
    if isinstance(verified, int):
        return verified
    announce(bound, verified)
    env = {**environ, "NRF_REFERENCE_DATA": str(verified.reference_data)}
    argv = api_gunicorn_command(bound.gunicorn_bind, api, settings.max_file_bytes)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(argv[0], argv, env)
