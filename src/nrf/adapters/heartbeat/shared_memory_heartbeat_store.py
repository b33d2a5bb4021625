"""SharedMemoryHeartbeatStore: the worker's liveness state in a named shared-memory block.

Over 200 lines: the byte layout and every accessor of the shared block must agree.
"""

from __future__ import annotations

import math
import multiprocessing
import struct
import sys
import time
import zlib
from collections.abc import Callable
from multiprocessing import resource_tracker
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import attrs

from nrf.domain.health import HeartbeatSnapshot

JOB_ID_BYTES = 128
VERSION_BYTES = 64
# status, last_heartbeat, job_started_at, expected_seconds, task_started_at,
# bundle_loaded, queue_reachable, draining, job id length, job id, bundle version.
_FIELDS = struct.Struct(f"=qdddd???H{JOB_ID_BYTES}s{VERSION_BYTES}s")
_CRC = struct.Struct("=I")
_SLOT = _FIELDS.size + _CRC.size
_HEADER = 8  # byte 0: which of the two slots holds the current state
_SIZE = _HEADER + 2 * _SLOT
_LOCK_TIMEOUT = 1.0
_READ_DEADLINE = 0.05


def _attach_untracked(name: str) -> SharedMemory:
    # Before Python 3.13 attaching registers the block with this process's resource
    # tracker, which unlinks it when an unrelated reader (gunicorn) exits.
    if sys.version_info >= (3, 13):
        return SharedMemory(name=name, track=False)
    register = resource_tracker.register
    resource_tracker.register = lambda *args, **kwargs: None
    try:
        return SharedMemory(name=name)
    finally:
        resource_tracker.register = register


class SharedMemoryHeartbeatStore:
    """One writer at a time (a shared lock), lock-free readers (two checksummed slots).

    A writer fills the idle slot, checksum last, then flips the one-byte index,
    so a reader always has a complete state to copy; the checksum rejects a copy
    torn by a concurrent write, and a writer stopped half-way harms only the
    idle slot.

    Create it in the parent with :meth:`create`; children receive it by
    inheritance (fork) or by pickling (spawn, which re-attaches by name and
    shares the lock). Other processes, such as gunicorn, :meth:`attach` by name
    and only read. A reader never waits on a writer, so a stopped worker cannot
    stop ``/health`` from answering.
    """

    def __init__(self, shm: SharedMemory, lock: Any, owner: bool) -> None:
        self._shm = shm
        self._lock = lock
        self._owner = owner

    @classmethod
    def create(
        cls, name: str | None = None, *, now: float | None = None
    ) -> SharedMemoryHeartbeatStore:
        shm = SharedMemory(name=name, create=True, size=_SIZE)
        # A spawn-context lock also travels to forked children; the reverse is refused.
        store = cls(shm, multiprocessing.get_context("spawn").Lock(), owner=True)
        store._write(HeartbeatSnapshot(task_started_at=time.time() if now is None else now))
        return store

    @classmethod
    def attach(cls, name: str, lock: Any = None) -> SharedMemoryHeartbeatStore:
        """Open an existing block; without the creator's lock, use it to read only."""
        return cls(_attach_untracked(name), lock or multiprocessing.Lock(), owner=False)

    @property
    def name(self) -> str:
        return self._shm.name

    @property
    def _buf(self) -> memoryview:
        buf = self._shm.buf
        if buf is None:
            raise ValueError("the heartbeat store is closed")
        return buf

    def __reduce__(self) -> tuple[Callable[..., SharedMemoryHeartbeatStore], tuple[Any, ...]]:
        # The lock pickles only while a child process is being spawned, which is
        # exactly when a store should travel.
        return (SharedMemoryHeartbeatStore.attach, (self.name, self._lock))

    def close(self) -> None:
        """Detach; the creator also removes the block."""
        self._shm.close()
        if self._owner:
            self._shm.unlink()

    def __enter__(self) -> SharedMemoryHeartbeatStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- HeartbeatStore -------------------------------------------------------------

    def set_status(self, status: int) -> None:
        self._update(lambda s: attrs.evolve(s, status=status))

    def beat(self, now: float) -> None:
        self._update(lambda s: attrs.evolve(s, last_heartbeat=now))

    def start_job(self, job_id: str, expected_seconds: float, now: float) -> None:
        if len(job_id.encode("utf-8")) > JOB_ID_BYTES:
            raise ValueError(f"job id longer than {JOB_ID_BYTES} bytes")
        self._update(
            lambda s: attrs.evolve(
                s,
                job_id=job_id,
                job_started_at=now,
                expected_seconds=expected_seconds,
                last_heartbeat=now,
            )
        )

    def end_job(self, now: float) -> None:
        self._update(
            lambda s: attrs.evolve(
                s, job_id=None, job_started_at=None, expected_seconds=None, last_heartbeat=now
            )
        )

    def set_ready(self, bundle_loaded: bool, queue_reachable: bool) -> None:
        self._update(
            lambda s: attrs.evolve(s, bundle_loaded=bundle_loaded, queue_reachable=queue_reachable)
        )

    def set_draining(self, draining: bool) -> None:
        self._update(lambda s: attrs.evolve(s, draining=draining))

    def set_bundle_version(self, version: str) -> None:
        # Cut to the field's size on a character boundary: /ready shows it, nothing parses it.
        shown = version.encode("utf-8")[:VERSION_BYTES].decode("utf-8", "ignore")
        self._update(lambda s: attrs.evolve(s, bundle_version=shown))

    def snapshot(self) -> HeartbeatSnapshot:
        """A consistent copy; TimeoutError only if writes never pause for 50 ms."""
        deadline = time.monotonic() + _READ_DEADLINE
        while True:
            state = self._read_current()
            if state is not None:
                return state
            if time.monotonic() > deadline:
                raise TimeoutError("no consistent heartbeat state could be read")
            time.sleep(0)

    # --- layout ---------------------------------------------------------------------

    def _read_current(self) -> HeartbeatSnapshot | None:
        buf = self._buf
        offset = _HEADER + (buf[0] & 1) * _SLOT
        raw = bytes(buf[offset : offset + _SLOT])
        payload = raw[: _FIELDS.size]
        if _CRC.unpack_from(raw, _FIELDS.size)[0] != zlib.crc32(payload):
            return None
        return _decode(payload)

    def _update(self, change: Callable[[HeartbeatSnapshot], HeartbeatSnapshot]) -> None:
        # A writer killed while holding the lock must not freeze the others for good.
        locked = self._lock.acquire(timeout=_LOCK_TIMEOUT)
        try:
            self._write(change(self.snapshot()))
        finally:
            if locked:
                self._lock.release()

    def _write(self, snapshot: HeartbeatSnapshot) -> None:
        buf = self._buf
        idle = (buf[0] & 1) ^ 1
        offset = _HEADER + idle * _SLOT
        payload = _FIELDS.pack(*_encode(snapshot))
        buf[offset : offset + _FIELDS.size] = payload
        _CRC.pack_into(buf, offset + _FIELDS.size, zlib.crc32(payload))
        buf[0] = idle


def _opt(value: float | None) -> float:
    return math.nan if value is None else value


def _encode(s: HeartbeatSnapshot) -> tuple[Any, ...]:
    job = (s.job_id or "").encode("utf-8")
    return (
        s.status,
        s.last_heartbeat,
        _opt(s.job_started_at),
        _opt(s.expected_seconds),
        s.task_started_at,
        s.bundle_loaded,
        s.queue_reachable,
        s.draining,
        len(job) if s.job_id is not None else 0xFFFF,
        job,
        s.bundle_version.encode("utf-8"),
    )


def _decode(raw: bytes) -> HeartbeatSnapshot:
    fields = _FIELDS.unpack(raw)
    status, beat, started, expected, task, bundle, queue, draining, size, job, version = fields
    return HeartbeatSnapshot(
        status=status,
        last_heartbeat=beat,
        job_id=None if size == 0xFFFF else job[:size].decode("utf-8"),
        job_started_at=None if math.isnan(started) else started,
        expected_seconds=None if math.isnan(expected) else expected,
        task_started_at=task,
        bundle_loaded=bundle,
        queue_reachable=queue,
        draining=draining,
        bundle_version=version.rstrip(b"\0").decode("utf-8", "ignore"),
    )
