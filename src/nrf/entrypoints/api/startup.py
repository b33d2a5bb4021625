"""`nrf serve`'s start: claim the port, verify the pinned bundle as the worker does, say where.

The port is bound first, so a port in use is one JSON line with a code, not minutes of download
and then gunicorn's five retries. gunicorn inherits the bound socket (``fd://``), so nothing can
take the port in between, and listens on it only once the verified bundle is in place: until
then connections are refused, and no load balancer sees the API healthy while it cannot quote.
"""

from __future__ import annotations

import errno
import logging
import socket

from attrs import frozen

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.exit_codes import EXIT_FATAL
from nrf.entrypoints.reference_bundle import verify_reference_data

log = logging.getLogger("nrf.api")

PORT_IN_USE, CANNOT_BIND = "port_in_use", "cannot_bind"
API_CANNOT_START = "api_cannot_start"


@frozen
class Bound:
    """A bound (not yet listening) socket for gunicorn to inherit, and where it is."""

    sock: socket.socket
    url: str

    @property
    def gunicorn_bind(self) -> str:
        return f"fd://{self.sock.fileno()}"


def bind_port(bind: str) -> Bound | int:
    """The bound socket for ``HOST:PORT``, or EXIT_FATAL after one ``api_cannot_start`` line."""
    host, _, port_text = bind.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    try:
        port = int(port_text)
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (ValueError, OSError) as exc:
        log.error(API_CANNOT_START, extra={"code": CANNOT_BIND, "bind": bind, "error": str(exc)})
        return EXIT_FATAL
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        code = PORT_IN_USE if exc.errno == errno.EADDRINUSE else CANNOT_BIND
        log.error(API_CANNOT_START, extra={"code": code, "bind": bind, "error": str(exc)})
        return EXIT_FATAL
    sock.set_inheritable(True)
    shown = f"[{address[0]}]" if family == socket.AF_INET6 else address[0]
    return Bound(sock, f"http://{shown}:{sock.getsockname()[1]}")


def verify_bundle(settings: WorkerSettings) -> WorkerSettings | int:
    """The worker's pin step, shared: download, verify, refuse synthetic without the opt-in."""
    return verify_reference_data(settings, None, lambda: False, event=API_CANNOT_START)


def announce(bound: Bound, settings: WorkerSettings) -> None:
    """The one ``api_listening`` line: where, and which bundle it quotes from."""
    log.info(
        "api_listening",
        extra={"listening_on": bound.url, "reference_data": settings.reference_data},
    )
