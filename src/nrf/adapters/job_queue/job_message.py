"""Read a queue message once, at the edge: our canonical schema, Defra's quote, an SNS envelope.

Everything after this works on the values in ``nrf.domain.job_request``; no other module
looks inside a message body. The schemas themselves are ``canonical_job`` and ``defra_quote``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from nrf.adapters.job_queue.canonical_job import canonical_request
from nrf.adapters.job_queue.defra_quote import defra_request
from nrf.adapters.job_queue.message_fields import InvalidJobMessage
from nrf.adapters.safe_json import NOT_JSON, read_json
from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.job_request import IncomingJob, JobRequest, Receipt, RejectedJob
from nrf.domain.jobs import QueueMessage

MAX_BODY_BYTES = 256 * 1024


def claim_owner(message: QueueMessage) -> str:
    """The claim owner for one receive of a message: ``<message id>/<receipt digest>``.

    A new receive (a new receipt handle) is a new owner, so a receive after a crash
    must wait for the old lease to run out or be released.
    """
    digest = hashlib.sha256(message.receipt_handle.encode()).hexdigest()[:16]
    return f"{message.message_id}/{digest}"


def read_job(message: QueueMessage) -> IncomingJob:
    """The one place a message is read: its request (or why it is refused) and its receipt."""
    receipt = Receipt(
        message_id=message.message_id,
        receive_count=message.receive_count,
        claim_owner=claim_owner(message),
        body_bytes=len(message.body.encode("utf-8", "surrogatepass")),
    )
    try:
        request = parse_job_message(message.body)
    except InvalidJobMessage as exc:
        rejected = RejectedJob(
            job_id=exc.job_id or f"message-{message.message_id}",
            email=exc.email,
            trace_id=exc.trace_id,
            problems=exc.problems,
        )
        return IncomingJob(message=message, receipt=receipt, body=rejected)
    return IncomingJob(message=message, receipt=receipt, body=request)


def _loads(text: str, what: str) -> Any:
    try:
        return read_json(text, what)
    except InvalidInput as exc:
        raise InvalidJobMessage(list(exc.problems)) from None


def parse_job_message(body: str | bytes, max_bytes: int = MAX_BODY_BYTES) -> JobRequest:
    """Parse and validate a message body; raises InvalidJobMessage with every problem found."""
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    if len(raw) > max_bytes:
        raise InvalidJobMessage(
            [
                Problem(
                    code="message_too_large",
                    message=f"the body is {len(raw)} bytes; the limit is {max_bytes}",
                )
            ]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidJobMessage(
            [Problem(code=NOT_JSON, message="the body is not UTF-8 text")]
        ) from None
    data = _loads(text, "the body")
    if isinstance(data, dict) and data.get("Type") == "Notification" and "Message" in data:
        inner = data["Message"]
        if not isinstance(inner, str):
            raise InvalidJobMessage(
                [Problem(code=NOT_JSON, message="the SNS Message is not a string")]
            )
        data = _loads(inner, "the SNS Message")
    if not isinstance(data, dict):
        raise InvalidJobMessage(
            [Problem(code="unknown_message_schema", message="the body is not a JSON object")]
        )
    if "job_id" in data:
        return canonical_request(data)
    if "reference" in data or "boundaryGeojson" in data:
        return defra_request(data)
    raise InvalidJobMessage(
        [
            Problem(
                code="unknown_message_schema",
                message="neither a nrf job (job_id) nor a Defra quote (reference)",
            )
        ]
    )
