"""A started job process has frozen its start-up heap; garbage made before the freeze is gone."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

from nrf.adapters.environment.settings import WorkerSettings
from nrf.entrypoints.worker.job_processes import JobProcesses

# Run apart: freezing pytest's own heap would keep the rest of the session's cycles alive.
FREEZE = textwrap.dedent(
    """
    import gc, weakref
    from nrf.entrypoints.startup_heap import freeze_startup_heap

    class Node:
        pass

    kept, cycle = Node(), Node()
    cycle.me = cycle
    gone = weakref.ref(cycle)
    del cycle
    gc.disable()  # only the freeze's own collection may free the cycle
    freeze_startup_heap()
    print(gone() is None, gc.get_freeze_count() > 0, gc.is_tracked(kept))
    """
)


def test_the_freeze_collects_first_then_freezes_what_is_alive() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FREEZE], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["True", "True", "True"]


def test_a_job_process_is_frozen_once_started() -> None:
    jobs = JobProcesses(WorkerSettings(concurrency=1))
    try:
        jobs.warm_up()
        # Its imports, container and open bundle: far more than a bare interpreter's objects.
        frozen = jobs._pool.submit(gc.get_freeze_count).result(timeout=60)
    finally:
        jobs.close()
    assert frozen > 50_000
