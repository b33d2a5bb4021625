"""Recording in-memory fakes of the worker's ports, for unit tests."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import attrs
from botocore.exceptions import ClientError

from nrf.domain.claims import Lease, next_lease
from nrf.domain.health import HeartbeatSnapshot
from nrf.domain.jobs import (
    JobRecord,
    Notification,
    NotificationRecord,
    QueueMessage,
    ResultStoreUnavailable,
)


class FakeClock:
    """Wall-clock time that moves only when told to."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.current = start

    def now(self) -> float:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += seconds


class FakeSleeper:
    """Records every sleep and, given a clock, moves it on instead of waiting."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.sleeps: list[float] = []
        self._clock = clock

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if self._clock is not None:
            self._clock.advance(seconds)


@attrs.define
class _Stored:
    message_id: str
    body: str
    sent_at: float
    visible_at: float
    receive_count: int = 0
    receipt_handle: str | None = None


class FakeJobQueue:
    """SQS semantics in memory: visibility timeouts, receive counts, a redrive to ``dead``."""

    def __init__(
        self,
        clock: FakeClock,
        *,
        visibility_timeout: int = 30,
        max_receive_count: int | None = None,
    ) -> None:
        self.clock = clock
        self.visibility_timeout = visibility_timeout
        self.max_receive_count = max_receive_count
        self.messages: dict[str, _Stored] = {}
        self.dead: list[str] = []  # bodies moved to the dead-letter queue
        self.deleted: list[str] = []  # message ids
        self.visibility_changes: list[tuple[str, int]] = []
        self.receive_calls: list[tuple[int, int, int | None]] = []
        self.errors: list[Exception] = []  # raised, in order, by the next calls
        self._ids = itertools.count(1)

    def _maybe_fail(self) -> None:
        if self.errors:
            raise self.errors.pop(0)

    def send(self, body: str) -> str:
        self._maybe_fail()
        message_id = f"m-{next(self._ids)}"
        now = self.clock.now()
        self.messages[message_id] = _Stored(message_id, body, now, now)
        return message_id

    def receive(
        self, max_messages: int = 1, wait_seconds: int = 20, visibility_timeout: int | None = None
    ) -> list[QueueMessage]:
        self.receive_calls.append((max_messages, wait_seconds, visibility_timeout))
        self._maybe_fail()
        now = self.clock.now()
        hide = self.visibility_timeout if visibility_timeout is None else visibility_timeout
        received: list[QueueMessage] = []
        for stored in list(self.messages.values()):
            if len(received) >= max_messages:
                break
            if stored.visible_at > now:
                continue
            if (
                self.max_receive_count is not None
                and stored.receive_count >= self.max_receive_count
            ):
                del self.messages[stored.message_id]
                self.dead.append(stored.body)
                continue
            stored.receive_count += 1
            stored.visible_at = now + hide
            stored.receipt_handle = f"{stored.message_id}/r{stored.receive_count}"
            received.append(
                QueueMessage(
                    message_id=stored.message_id,
                    receipt_handle=stored.receipt_handle,
                    body=stored.body,
                    receive_count=stored.receive_count,
                    sent_at=stored.sent_at,
                )
            )
        return received

    def _current(self, message: QueueMessage) -> _Stored | None:
        stored = self.messages.get(message.message_id)
        if stored is None or stored.receipt_handle != message.receipt_handle:
            return None  # gone or received again since: like SQS, not an error
        return stored

    def delete(self, message: QueueMessage) -> None:
        self._maybe_fail()
        if self._current(message) is not None:
            del self.messages[message.message_id]
            self.deleted.append(message.message_id)

    def change_visibility(self, message: QueueMessage, seconds: int) -> None:
        self._maybe_fail()
        stored = self._current(message)
        if stored is not None:
            stored.visible_at = self.clock.now() + seconds
            self.visibility_changes.append((message.message_id, seconds))


class FakeResultStore:
    """Records saves; ``failures`` / ``claim_failures`` make the next saves / claims raise
    ResultStoreUnavailable."""

    def __init__(self) -> None:
        self.records: dict[str, JobRecord] = {}
        self.files: dict[str, dict[str, bytes]] = {}
        self.saves: list[str] = []
        self.failures = 0
        self.claim_failures = 0
        self.leases: dict[str, Lease] = {}
        self.claims: list[tuple[str, str, bool]] = []  # (job id, owner, granted)
        self.releases: list[tuple[str, str]] = []

    def record(self, job_id: str) -> JobRecord | None:
        return self.records.get(job_id)

    def save(self, job_id: str, files: Mapping[str, bytes], record: JobRecord) -> str:
        if self.failures:
            self.failures -= 1
            raise ResultStoreUnavailable("fake store is down")
        self.files.setdefault(job_id, {}).update(files)  # a later save may add only the record
        self.records[job_id] = record
        self.saves.append(job_id)
        return f"memory://{job_id}/"

    def sweep_temporaries(self, now: float, older_than: float) -> int:
        return 0  # nothing is ever written part-way in memory

    def claim(self, job_id: str, owner: str, now: float, lease_seconds: float) -> Lease:
        if self.claim_failures:
            self.claim_failures -= 1
            raise ResultStoreUnavailable("fake store is down")
        current = self.leases.get(job_id)
        lease = next_lease(current, job_id, owner, now, lease_seconds)
        self.claims.append((job_id, owner, lease is not None))
        if lease is None:
            assert current is not None
            return current
        self.leases[job_id] = lease
        return lease

    def release(self, job_id: str, owner: str, now: float) -> None:
        current = self.leases.get(job_id)
        if current is not None and current.held_by(owner):
            self.leases[job_id] = Lease(job_id=job_id, owner=owner, expires_at=now)
            self.releases.append((job_id, owner))


class FakeNotifier:
    """Records every notification; ``fail_for`` recipients get sent=False.

    ``retryable`` makes those failures pending (a provider outage rather than a refusal);
    ``can_look_up=False`` answers ``sent_before`` with None, as SES must.
    """

    def __init__(
        self,
        fail_for: frozenset[str] = frozenset(),
        *,
        retryable: bool = False,
        can_look_up: bool = True,
    ) -> None:
        self.sent: list[Notification] = []
        self.fail_for = fail_for
        self.retryable = retryable
        self.can_look_up = can_look_up
        self.delivered: list[Notification] = []  # what reached an inbox
        self.lookups: list[Notification] = []

    def sent_before(self, notification: Notification) -> bool | None:
        self.lookups.append(notification)
        if not self.can_look_up:
            return None
        key = (notification.kind, notification.recipient, notification.reference)
        return any((n.kind, n.recipient, n.reference) == key for n in self.delivered)

    def send(self, notification: Notification) -> NotificationRecord:
        self.sent.append(notification)
        ok = notification.recipient not in self.fail_for
        if ok:
            self.delivered.append(notification)
        return NotificationRecord(
            kind=notification.kind,
            recipient=notification.recipient,
            sent=ok,
            provider_id=f"fake-{len(self.sent)}" if ok else None,
            error=None if ok else "fake_failure",
            attempts=1,
            pending=not ok and self.retryable,
        )


class FakeHeartbeatStore:
    """The HeartbeatStore port in one process, recording each call by name."""

    def __init__(self, snapshot: HeartbeatSnapshot | None = None) -> None:
        self.state = snapshot or HeartbeatSnapshot()
        self.calls: list[str] = []

    def _set(self, call: str, **changes: Any) -> None:
        self.calls.append(call)
        self.state = attrs.evolve(self.state, **changes)

    def set_status(self, status: int) -> None:
        self._set("set_status", status=status)

    def beat(self, now: float) -> None:
        self._set("beat", last_heartbeat=now)

    def start_job(self, job_id: str, expected_seconds: float, now: float) -> None:
        self._set(
            "start_job",
            job_id=job_id,
            job_started_at=now,
            expected_seconds=expected_seconds,
            last_heartbeat=now,
        )

    def end_job(self, now: float) -> None:
        self._set(
            "end_job", job_id=None, job_started_at=None, expected_seconds=None, last_heartbeat=now
        )

    def set_ready(self, bundle_loaded: bool, queue_reachable: bool) -> None:
        self._set("set_ready", bundle_loaded=bundle_loaded, queue_reachable=queue_reachable)

    def set_draining(self, draining: bool) -> None:
        self._set("set_draining", draining=draining)

    def set_bundle_version(self, version: str) -> None:
        self._set("set_bundle_version", bundle_version=version)

    def snapshot(self) -> HeartbeatSnapshot:
        return self.state


class _Body:
    """A response body that hands out ``piece`` bytes a read and may drop the connection."""

    def __init__(self, data: bytes, piece: int, drop_after: int | None) -> None:
        self._data, self._piece, self._drop_after, self._at = data, piece, drop_after, 0

    def read(self, size: int) -> bytes:
        if self._drop_after is not None and self._at >= self._drop_after:
            raise ConnectionResetError("connection reset by peer")
        chunk = self._data[self._at : self._at + min(size, self._piece)]
        self._at += len(chunk)
        return chunk


class FakeS3:
    """Objects in memory with S3's GetObject shape; records every request's Range.

    ``drops`` lists, per request, after how many body bytes the connection is cut (None: never).
    """

    def __init__(self, objects: dict[tuple[str, str], bytes], piece: int = 1000) -> None:
        self.objects = objects
        self.piece = piece
        self.drops: list[int | None] = []
        self.ranges: list[str | None] = []
        self.honour_range = True
        self.content_length: int | None = None

    def get_object(self, Bucket: str, Key: str, Range: str | None = None) -> dict[str, Any]:
        self.ranges.append(Range)
        if (Bucket, Key) not in self.objects:
            raise ClientError({"Error": {"Code": "NoSuchKey"}}, "GetObject")
        data = self.objects[(Bucket, Key)]
        response: dict[str, Any] = {}
        if Range and self.honour_range:
            start = int(Range.removeprefix("bytes=").rstrip("-"))
            response["ContentRange"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            data = data[start:]
        drop = self.drops.pop(0) if self.drops else None
        response["ContentLength"] = self.content_length or len(data)
        response["Body"] = _Body(data, self.piece, drop)
        return response
