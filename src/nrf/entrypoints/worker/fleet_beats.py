"""The worker process's fleet heartbeat: a thread that beats every interval, `stopped` at exit.

A thread of the worker process, not of a job process: it reads the shared liveness state the
loop already keeps, so the record says what `/health` would, and the geo work in the job
processes cannot starve it.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
from collections.abc import Callable

from nrf.adapters.environment.settings import WorkerSettings
from nrf.domain.fleet import BundleStamp, WorkerState
from nrf.domain.health import WorkerStatus
from nrf.domain.model import BundleInfo
from nrf.domain.ports import Clock, HeartbeatStore
from nrf.entrypoints.ops_metrics import publish_counts
from nrf.service_layer.fleet_heartbeat import FleetHeartbeat, WorkerActivity, WorkerIdentity

log = logging.getLogger("nrf.fleet")


def default_worker_id(hostname: str, supervisor_pid: int) -> str:
    """Host and supervisor: unique per ECS task (awsvpc hostnames), kept over restarts."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", hostname).strip(".-")[:100] or "worker"
    return f"{cleaned}-{supervisor_pid}"


def activity_reader(
    shared: HeartbeatStore, in_flight: Callable[[], int]
) -> Callable[[], WorkerActivity]:
    """Activity from the shared state: the last loop beat with the queue reachable is contact."""
    last_contact: list[float | None] = [None]

    def read() -> WorkerActivity:
        snap = shared.snapshot()
        if snap.queue_reachable:
            last_contact[0] = snap.last_heartbeat
        state = (
            WorkerState.ERROR
            if snap.status == WorkerStatus.ERROR
            else WorkerState.DRAINING
            if snap.draining
            else WorkerState.RUNNING
        )
        return WorkerActivity(state, in_flight(), last_contact[0])

    return read


class HeartbeatThread:
    """Beats at once, then every interval until stopped; a clean stop writes `stopped`."""

    def __init__(
        self, heartbeat: FleetHeartbeat, interval: float, on_beat: Callable[[], None]
    ) -> None:
        self._heartbeat, self._interval, self._on_beat = heartbeat, interval, on_beat
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="nrf-fleet-beat", daemon=True)

    def start(self) -> HeartbeatThread:
        self._thread.start()
        return self

    def stop(self, clean: bool) -> None:
        """A clean exit is marked stopped; any other leaves a last beat that goes stale."""
        self._stop.set()
        self._thread.join(30)
        if clean:
            self._heartbeat.stopped()
        else:
            self._heartbeat.beat()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self._heartbeat.beat() is not None:
                    self._on_beat()
            except Exception:  # a surprise here must not end the beats for good
                log.exception("fleet_heartbeat_error")
            self._stop.wait(self._interval)


def start_fleet_heartbeat(
    settings: WorkerSettings,
    heartbeat: Callable[..., FleetHeartbeat],
    bundle: BundleStamp,
    shared: HeartbeatStore,
    in_flight: Callable[[], int],
    clock: Clock,
) -> HeartbeatThread:
    """The worker process's hook: one call after the loop is built, ``stop`` after it ran.

    ``heartbeat`` is the worker root's provider (records and clock wired there); this adds the
    worker's identity and activity, which only the running worker process knows.
    """
    worker_id = settings.worker_id or default_worker_id(socket.gethostname(), os.getppid())
    identity = WorkerIdentity(
        worker_id=worker_id,
        started_at=shared.snapshot().task_started_at or clock.now(),
        bundle=bundle,
        interval_seconds=settings.fleet_heartbeat_seconds,
    )
    beat = heartbeat(identity=identity, activity=activity_reader(shared, in_flight))
    namespace = settings.metrics_namespace
    log.info("fleet_heartbeat_started", extra={"worker_id": worker_id})
    emit = lambda: publish_counts(namespace, {"WorkerHeartbeats": 1}, worker_id=worker_id)  # noqa: E731
    return HeartbeatThread(beat, settings.fleet_heartbeat_seconds, emit).start()


def bundle_stamp(info: BundleInfo) -> BundleStamp:
    return BundleStamp(info.name, info.version, info.sha256)
