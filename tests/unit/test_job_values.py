"""Job values: records survive a JSON round trip, job ids are safe path segments."""

from __future__ import annotations

import pytest

from nrf.domain.errors import InvalidInput
from nrf.domain.jobs import (
    JobRecord,
    JobStatus,
    Notification,
    NotificationKind,
    NotificationRecord,
    job_record_from_json,
    job_record_to_json,
    validate_job_id,
)


def test_a_record_round_trips_through_json_with_enums_as_values() -> None:
    record = JobRecord(
        job_id="NRF-000001",
        status=JobStatus.FAILED,
        error_codes=("invalid_geometry", "unsupported_crs"),
        message="2 problems",
        finished_at=1_700_000_123.5,
        notifications=(
            NotificationRecord(
                kind=NotificationKind.FAILED,
                recipient="a@example.com",
                sent=False,
                provider_id=None,
                error="http_500",
                attempts=4,
            ),
        ),
        trace_id="t-1",
    )
    data = job_record_to_json(record)
    assert b'"status": "failed"' in data
    assert b'"kind": "failed"' in data
    assert job_record_from_json(data) == record


@pytest.mark.parametrize("data", [b"not json", b"{}", b'{"job_id": "x", "status": "odd"}'])
def test_anything_else_is_not_a_record(data: bytes) -> None:
    with pytest.raises(ValueError):
        job_record_from_json(data)


@pytest.mark.parametrize("job_id", ["NRF-000001", "a", "job_1.v2", "0" * 128])
def test_safe_job_ids_pass(job_id: str) -> None:
    assert validate_job_id(job_id) == job_id


@pytest.mark.parametrize(
    "job_id", ["", ".", "..", "../etc", ".hidden", "a/b", "a\\b", "a b", "é", "0" * 129, "a\x00"]
)
def test_unsafe_job_ids_are_invalid_input(job_id: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        validate_job_id(job_id)
    assert raised.value.codes == ["invalid_job_id"]


def test_personalisation_is_a_read_only_copy() -> None:
    values = {"job_id": "NRF-000001"}
    notification = Notification(
        kind=NotificationKind.COMPLETED,
        recipient="a@example.com",
        job_id="NRF-000001",
        personalisation=values,
    )
    values["job_id"] = "changed"
    assert notification.personalisation["job_id"] == "NRF-000001"
    with pytest.raises(TypeError):
        notification.personalisation["job_id"] = "x"  # type: ignore[index]


def _entry(*, sent: bool, pending: bool) -> NotificationRecord:
    return NotificationRecord(
        kind=NotificationKind.COMPLETED, recipient="a@example.com", sent=sent, pending=pending
    )


@pytest.mark.parametrize(
    ("entries", "pending"),
    [
        ((), False),  # nothing to send: the message may go
        (((True, False), (False, False)), False),  # one sent, one failed for good: settled
        (((True, False), (False, True)), True),  # the second still pending: keep the message
        (((False, True),), True),  # a bare intent, never tried
    ],
)
def test_a_record_is_pending_while_any_entry_is(
    entries: tuple[tuple[bool, bool], ...], pending: bool
) -> None:
    notifications = tuple(_entry(sent=sent, pending=waits) for sent, waits in entries)
    record = JobRecord(job_id="j", status=JobStatus.SUCCEEDED, notifications=notifications)
    assert record.has_pending() is pending
