"""A gunicorn worker that serves its app with hypercorn on asyncio: headers have a deadline.

gunicorn keeps what it does well (processes, replacing a silent or worn one, graceful stops);
hypercorn reads requests with h11 in an event loop, where a connection that sends nothing, or
headers a byte at a time, costs a socket and is closed ``header_seconds`` after it opened.
Some of hypercorn's behaviours are changed by importing ``hypercorn_patches``. A worn process
is replaced only while no sibling is being replaced (replacements.py), and a stopping process
stops accepting before it drains (stopping.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
from typing import Any

from gunicorn.workers.base import Worker
from hypercorn.asyncio import serve

from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.hypercorn_patches import DeadlineConfig
from nrf.adapters.http_server.replacements import Replacements
from nrf.adapters.http_server.stopping import stop_accepting

log = logging.getLogger("nrf.http")
# A replacement not ready this long after it began (its start failed) holds no sibling back.
REPLACEMENT_STALE_SECONDS = 120.0


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux), or None where /proc cannot tell."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def worn(rss: int | None, limit: int, served: int, quota: int) -> str | None:
    """Why the process should be replaced, or None: it has served its quota of requests, or is
    over its RSS limit after serving some. Only what requests left counts: a process over the
    limit before any (a bundle bigger than the limit) would otherwise be replaced for ever,
    once a second. The quota counts requests the app answered, not refusals, which leave
    nothing behind (a flood of 401s and 429s replaced processes for nothing)."""
    if served >= quota:
        return "requests"
    if rss is not None and rss > limit and served > 0:
        return "rss"
    return None


def open_files_up_to_the_hard_limit() -> None:
    """Each waiting connection holds a file descriptor: allow as many as the platform does
    (a container often starts with a soft limit of 1,024 under a higher hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class HypercornWorker(Worker):
    """Serves the Gate that gunicorn's app factory returned, on gunicorn's listening sockets."""

    replacements: Replacements | None = None  # made in the arbiter, shared by its workers

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        """Run by gunicorn's arbiter before it forks a worker: the shared replacement state."""
        cls.replacements = Replacements(REPLACEMENT_STALE_SECONDS)

    def run(self) -> None:
        gate = self.wsgi
        if not isinstance(gate, Gate):
            raise TypeError("the app factory must return an nrf Gate")
        limits = gate.limits
        config = DeadlineConfig()
        config.send_seconds = limits.send_seconds
        config.bind = [f"fd://{sock.fileno()}" for sock in self.sockets]
        config.keep_alive_timeout = limits.header_seconds
        config.h11_max_incomplete_size = limits.max_header_bytes
        config.graceful_timeout = float(limits.graceful_seconds)
        config.backlog = limits.backlog  # hypercorn listens again on gunicorn's socket
        open_files_up_to_the_hard_limit()
        config.accesslog = None
        config.include_server_header = False
        config.loglevel = "WARNING"
        # hypercorn's own max_requests stays unset: _until_stop replaces by count, in turn.
        # Logged before the state changes, and worker_recycled after: in the log a replacement
        # is always followed by its successor's worker_ready before the next worker_recycled.
        log.info("worker_ready", extra={"worker_pid": self.pid})
        if self.replacements is not None:
            self.replacements.ready()
        app: Any = gate  # an ASGI app; hypercorn's types name each ASGI message
        asyncio.run(serve(app, config, shutdown_trigger=self._until_stop, mode="asgi"))

    async def _until_stop(self) -> None:
        """Return when we should stop, having stopped accepting (hypercorn then drains)."""
        await self._until_due()
        await stop_accepting(self.sockets)

    async def _until_due(self) -> None:
        """Tell gunicorn we are alive each check; return when we should stop."""
        limit = self.wsgi.limits.max_rss_bytes
        while self.alive:
            self.notify()
            if self.ppid != os.getppid():
                self.log.info("Parent changed, shutting down: %s", self)
                return
            rss = resident_bytes()
            # gunicorn drew this worker's own quota from max_requests and its jitter.
            why = worn(rss, limit, self.wsgi.served, self.max_requests)
            if why is not None and (self.replacements is None or self.replacements.begin()):
                fields = {"reason": why, "rss": rss, "served": self.wsgi.served}
                log.warning("worker_recycled", extra={**fields, "worker_pid": self.pid})
                return
            await asyncio.sleep(self.wsgi.limits.check_seconds)
