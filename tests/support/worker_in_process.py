"""The real gunicorn worker class, run in a thread of the test's process on a loopback socket.

For tests that order events inside the worker's event loop (support/stop_hook.py): the worker
serves ``gate`` on a copy of ``listener``'s socket, as a gunicorn process serves its arbiter's.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from attrs import define, field
from gunicorn.config import Config as GunicornConfig
from gunicorn.glogging import Logger

from nrf.adapters.http_server.gate import Gate
from nrf.adapters.http_server.replacements import Replacements
from nrf.adapters.http_server.worker import HypercornWorker


@define
class RunningWorker:
    worker: HypercornWorker
    thread: threading.Thread
    failures: list[BaseException] = field(factory=list)

    def stopped(self, timeout: float = 60) -> bool:
        """True once the worker has stopped, without error, within ``timeout``."""
        self.thread.join(timeout)
        return not self.thread.is_alive() and not self.failures


@contextmanager
def worker_in_process(
    gate: Gate, listener: socket.socket, quota: int, replacements: Replacements | None = None
) -> Iterator[RunningWorker]:
    """Serve ``gate`` on ``listener`` until ``quota`` requests are answered (or it is told to
    stop: ``worker.alive = False``, as gunicorn's SIGTERM handler does); ``replacements`` is
    the state gunicorn's arbiter would share (none: the worker goes when due)."""
    shared = socket.socket(fileno=os.dup(listener.fileno()))
    cfg = GunicornConfig()
    worker = HypercornWorker(1, os.getppid(), [shared], None, 30, cfg, Logger(cfg))
    worker.wsgi = gate
    worker.max_requests = quota
    worker.replacements = replacements
    running = RunningWorker(worker=worker, thread=threading.Thread(target=lambda: None))

    def run() -> None:
        try:
            worker.run()
        except BaseException as error:  # seen by the test through stopped()
            running.failures.append(error)

    running.thread = threading.Thread(target=run)
    running.thread.start()
    try:
        yield running
    finally:
        worker.alive = False
        running.thread.join(timeout=60)
        shared.detach()  # its descriptor was closed by hypercorn
