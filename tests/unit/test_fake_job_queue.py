"""FakeJobQueue keeps SQS's visibility and redrive rules, so unit tests can trust it."""

from __future__ import annotations

import pytest

from fakes import FakeClock, FakeJobQueue
from nrf.domain.jobs import QueueTransientError


def test_visibility_hides_a_message_until_it_ends() -> None:
    clock = FakeClock()
    queue = FakeJobQueue(clock, visibility_timeout=30)
    queue.send("job")
    [first] = queue.receive(1, 0, None)
    assert queue.receive(1, 0, None) == []
    clock.advance(30)
    [again] = queue.receive(1, 0, None)
    assert (again.receive_count, again.receipt_handle != first.receipt_handle) == (2, True)


def test_a_stale_receipt_handle_neither_deletes_nor_raises() -> None:
    clock = FakeClock()
    queue = FakeJobQueue(clock)
    queue.send("job")
    [first] = queue.receive(1, 0, 0)
    [second] = queue.receive(1, 0, 10)
    queue.delete(first)
    assert queue.deleted == []
    queue.delete(second)
    assert queue.deleted == [second.message_id]


def test_change_visibility_zero_hands_the_message_back() -> None:
    queue = FakeJobQueue(FakeClock())
    queue.send("job")
    [message] = queue.receive(1, 0, 600)
    queue.change_visibility(message, 0)
    assert [m.message_id for m in queue.receive(1, 0, 600)] == [message.message_id]


def test_redrive_after_max_receive_count_and_scripted_errors() -> None:
    queue = FakeJobQueue(FakeClock(), max_receive_count=2)
    queue.send("poison")
    assert len(queue.receive(1, 0, 0)) == 1
    assert len(queue.receive(1, 0, 0)) == 1
    assert queue.receive(1, 0, 0) == []
    assert queue.dead == ["poison"]
    queue.errors.append(QueueTransientError("throttled"))
    with pytest.raises(QueueTransientError):
        queue.receive(1, 0, None)
    assert queue.receive(1, 0, None) == []
