"""Job, queue-message and notification values shared by the worker's ports."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

import cattrs
from attrs import field, frozen

from nrf.domain.errors import InvalidInput, NrfError, Problem
from nrf.domain.fleet import BundleStamp
from nrf.domain.serialization import converter


class JobStatus(StrEnum):
    """How a job ended."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"


class NotificationKind(StrEnum):
    """Which notification: an email, or the result report to the backend (BACKEND_RESULT)."""

    STARTED = "started"
    COMPLETED = "completed"
    FAILED = "failed"
    DEAD_LETTERED = "dead_lettered"
    QUEUE_STALLED = "queue_stalled"  # to support: nobody consuming, or consuming again
    DELAYED = "delayed"  # to a requester: the quote waits longer than it should
    BACKEND_RESULT = "backend_result"  # the result, reported to Defra's backend (not an email)
    QUOTE_REFUSED = "quote_refused"  # to support: a Defra quote given no levy, so no result sent


@frozen(kw_only=True)
class QueueMessage:
    """One received message; ``receipt_handle`` changes on every receive."""

    message_id: str
    receipt_handle: str
    body: str
    receive_count: int = 1
    sent_at: float | None = None  # epoch seconds


# The error of an email the deployment chose not to send: its kind has no template (the
# "started" email is optional). A decision, not a failure, so nobody is warned about it.
NO_TEMPLATE = "no_template_for_kind"


@frozen(kw_only=True)
class NotificationRecord:
    """What happened to one notification; kept on the job so no failure is silent."""

    kind: NotificationKind
    recipient: str
    sent: bool
    provider_id: str | None = None
    error: str | None = None
    attempts: int = 0
    # Not settled yet: an intent recorded before sending, or a retryable failure. The next
    # receive asks the provider (when it can) before sending, so nothing goes out twice.
    pending: bool = False
    # What the email said, so a resend after a crash says the same.
    details: tuple[tuple[str, str], ...] = ()


@frozen(kw_only=True)
class JobRecord:
    """The stored outcome of a job: its presence means the job is finished."""

    job_id: str
    status: JobStatus
    error_codes: tuple[str, ...] = ()
    # Defra's boundary-check codes (`boundary_codes`) for those of ``error_codes`` it names.
    defra_codes: tuple[str, ...] = ()
    message: str = ""
    finished_at: float = 0.0
    notifications: tuple[NotificationRecord, ...] = ()
    trace_id: str | None = None
    # The reference data a succeeded job was assessed with, so the record alone traces it;
    # on a failed job, the bundle that refused its quote for want of data (None: bad input).
    bundle: BundleStamp | None = None

    def has_pending(self) -> bool:
        """An email (or report) not settled yet: the job's message may not be deleted."""
        return any(n.pending for n in self.notifications)


def _read_only(values: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(values))


@frozen(hash=False, kw_only=True)
class Notification:
    """An email to send; ``personalisation`` is copied so callers cannot change it later."""

    kind: NotificationKind
    recipient: str
    job_id: str
    personalisation: Mapping[str, str] = field(factory=dict, converter=_read_only)
    reference: str = ""


class QueueFatalError(NrfError):
    """The queue cannot be used at all (missing queue, bad credentials): the worker stops."""

    def __init__(self, message: str, code: str = "queue_fatal") -> None:
        super().__init__(code, message)


class QueueTransientError(NrfError):
    """The queue failed this time (throttling, network): back off and try again."""

    def __init__(self, message: str, code: str = "queue_transient") -> None:
        super().__init__(code, message)


class ResultStoreUnavailable(NrfError):
    """Results could not be read or written; the message must stay on the queue."""

    def __init__(self, message: str, code: str = "result_store_unavailable") -> None:
        super().__init__(code, message)


class NotificationFailed(NrfError):
    """One attempt to send a notification failed; ``retryable`` says whether to try again."""

    def __init__(self, message: str, *, retryable: bool, code: str = "notification_failed") -> None:
        super().__init__(code, message)
        self.retryable = retryable


_JOB_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


def validate_job_id(job_id: str) -> str:
    """Return ``job_id`` if it is safe as a path or key segment, else raise InvalidInput.

    Only ``[A-Za-z0-9._-]``, at most 128 characters, and no leading dot, so a
    job id can never name a parent directory or a hidden file.
    """
    if not isinstance(job_id, str) or _JOB_ID.fullmatch(job_id) is None:
        raise InvalidInput(
            [
                Problem(
                    code="invalid_job_id",
                    message=(
                        "a job id must be 1-128 of A-Z a-z 0-9 . _ - and must not start with a dot"
                    ),
                    field="job_id",
                )
            ]
        )
    return job_id


def job_record_to_json(record: JobRecord) -> bytes:
    """Serialise a record as UTF-8 JSON (enums as their values)."""
    return json.dumps(converter.unstructure(record), sort_keys=True, indent=2).encode("utf-8")


def job_record_from_json(data: bytes | str) -> JobRecord:
    """Parse what :func:`job_record_to_json` wrote; raises ValueError if it is not a record."""
    try:
        return converter.structure(json.loads(data), JobRecord)
    except (json.JSONDecodeError, cattrs.BaseValidationError, TypeError, KeyError) as exc:
        raise ValueError(f"not a job record: {type(exc).__name__}") from exc
