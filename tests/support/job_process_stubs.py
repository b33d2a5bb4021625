"""Stand-in jobs for real job processes: run, sleep, or die by SIGKILL on request."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def stub_job(work: str) -> str:
    if work == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if work.startswith("sleep:"):
        time.sleep(float(work.split(":", 1)[1]))
    return f"done {work}"


def init_stub(flag_dir: str, die_once_while_starting: bool) -> None:
    """A job process's initializer; the first one to start dies when asked to (once)."""
    import nrf.entrypoints.worker.job_processes as job_processes

    if die_once_while_starting:
        try:
            os.close(os.open(Path(flag_dir) / "died", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            os.kill(os.getpid(), signal.SIGKILL)
    job_processes._job = stub_job
