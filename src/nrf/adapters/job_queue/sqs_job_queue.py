"""SqsJobQueue: the JobQueue port over Amazon SQS with long polling."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    NoCredentialsError,
    PartialCredentialsError,
)

from nrf.domain.jobs import QueueFatalError, QueueMessage, QueueTransientError

logger = logging.getLogger(__name__)

# Codes that no amount of waiting will fix: the worker must stop and say why.
FATAL_CODES = frozenset(
    {
        "QueueDoesNotExist",
        "AWS.SimpleQueueService.NonExistentQueue",
        "AccessDenied",
        "AccessDeniedException",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
    }
)
# A message deleted by someone else, or whose visibility already expired.
_GONE_CODES = frozenset(
    {
        "ReceiptHandleIsInvalid",
        "AWS.SimpleQueueService.ReceiptHandleIsInvalid",
        "MessageNotInflight",
        "AWS.SimpleQueueService.MessageNotInflight",
    }
)
_MAX_BATCH = 10  # SQS refuses more per receive
_MAX_WAIT = 20  # SQS long polling limit


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def translate_error(exc: Exception, operation: str) -> QueueFatalError | QueueTransientError:
    """Map a botocore error to the domain: fatal for missing queues and credentials."""
    if isinstance(exc, ClientError):
        code = error_code(exc)
        text = f"SQS {operation} failed with {code or 'an unknown error'}"
        if code in FATAL_CODES:
            return QueueFatalError(text, code="queue_unavailable")
        return QueueTransientError(text)
    if isinstance(exc, NoCredentialsError | PartialCredentialsError):
        return QueueFatalError(f"SQS {operation}: no usable AWS credentials", "queue_unavailable")
    return QueueTransientError(f"SQS {operation} failed: {type(exc).__name__}")


def _is_gone(exc: ClientError) -> bool:
    code = error_code(exc)
    if code in _GONE_CODES:
        return True
    message = str(exc.response.get("Error", {}).get("Message", "")).lower()
    return code == "InvalidParameterValue" and "receipt handle" in message


class SqsJobQueue:
    """Jobs on one SQS queue. The client's read timeout must exceed the wait time."""

    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self.queue_url = queue_url

    @classmethod
    def from_queue_name(cls, client: Any, queue_name: str) -> SqsJobQueue:
        """Resolve the queue's URL; a missing queue raises QueueFatalError."""
        try:
            url = client.get_queue_url(QueueName=queue_name)["QueueUrl"]
        except (ClientError, BotoCoreError) as exc:
            raise translate_error(exc, "GetQueueUrl") from exc
        return cls(client, url)

    def receive(
        self, max_messages: int = 1, wait_seconds: int = 20, visibility_timeout: int | None = None
    ) -> list[QueueMessage]:
        request: dict[str, Any] = {
            "QueueUrl": self.queue_url,
            "MaxNumberOfMessages": max(1, min(_MAX_BATCH, max_messages)),
            "WaitTimeSeconds": max(0, min(_MAX_WAIT, wait_seconds)),
            "AttributeNames": ["ApproximateReceiveCount", "SentTimestamp"],
        }
        if visibility_timeout is not None:
            request["VisibilityTimeout"] = visibility_timeout
        try:
            response = self._client.receive_message(**request)
        except (ClientError, BotoCoreError) as exc:
            raise translate_error(exc, "ReceiveMessage") from exc
        return [to_message(raw) for raw in response.get("Messages", [])]

    def delete(self, message: QueueMessage) -> None:
        self._acknowledge(
            message,
            "delete",
            "DeleteMessage",
            lambda: self._client.delete_message(
                QueueUrl=self.queue_url, ReceiptHandle=message.receipt_handle
            ),
        )

    def change_visibility(self, message: QueueMessage, seconds: int) -> None:
        self._acknowledge(
            message,
            "change_visibility",
            "ChangeMessageVisibility",
            lambda: self._client.change_message_visibility(
                QueueUrl=self.queue_url,
                ReceiptHandle=message.receipt_handle,
                VisibilityTimeout=seconds,
            ),
        )

    def _acknowledge(
        self, message: QueueMessage, action: str, operation: str, call: Callable[[], object]
    ) -> None:
        """Run a call on a receipt handle; a handle that is already gone is only logged."""
        try:
            call()
        except ClientError as exc:
            if not _is_gone(exc):
                raise translate_error(exc, operation) from exc
            _log_gone(action, message, exc)
        except BotoCoreError as exc:
            raise translate_error(exc, operation) from exc

    def send(self, body: str) -> str:
        try:
            response = self._client.send_message(QueueUrl=self.queue_url, MessageBody=body)
        except (ClientError, BotoCoreError) as exc:
            raise translate_error(exc, "SendMessage") from exc
        return str(response["MessageId"])


def to_message(raw: dict[str, Any]) -> QueueMessage:
    attributes = raw.get("Attributes", {})
    sent = attributes.get("SentTimestamp")
    return QueueMessage(
        message_id=raw["MessageId"],
        receipt_handle=raw["ReceiptHandle"],
        body=raw.get("Body", ""),
        receive_count=int(attributes.get("ApproximateReceiveCount", 1)),
        sent_at=int(sent) / 1000 if sent is not None else None,
    )


def _log_gone(action: str, message: QueueMessage, exc: ClientError) -> None:
    logger.warning(
        "receipt_handle_gone",
        extra={
            "event": "receipt_handle_gone",
            "action": action,
            "message_id": message.message_id,
            "error_code": error_code(exc),
        },
    )
