"""SqsJobQueue: botocore errors become fatal or transient; a vanished handle is not fatal."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)

from nrf.adapters.job_queue.sqs_job_queue import SqsJobQueue, translate_error
from nrf.domain.jobs import QueueFatalError, QueueMessage, QueueTransientError

MESSAGE = QueueMessage(
    message_id="m-1", receipt_handle="handle-1", body="{}", receive_count=1, sent_at=None
)


def client_error(code: str, message: str = "", operation: str = "ReceiveMessage") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": message}}, operation)


@pytest.mark.parametrize(
    "code",
    [
        "QueueDoesNotExist",
        "AWS.SimpleQueueService.NonExistentQueue",
        "AccessDenied",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
    ],
)
def test_missing_queue_and_bad_credentials_are_fatal(code: str) -> None:
    error = translate_error(client_error(code), "ReceiveMessage")
    assert isinstance(error, QueueFatalError)
    assert code in error.message


@pytest.mark.parametrize(
    "exc",
    [
        client_error("ThrottlingException"),
        client_error("RequestThrottled"),
        client_error("InternalError"),
        EndpointConnectionError(endpoint_url="http://127.0.0.1:1"),
        ConnectionClosedError(endpoint_url="http://127.0.0.1:1"),
        ReadTimeoutError(endpoint_url="http://127.0.0.1:1"),
    ],
)
def test_throttling_and_network_errors_are_transient(exc: Exception) -> None:
    assert isinstance(translate_error(exc, "ReceiveMessage"), QueueTransientError)


def test_missing_credentials_are_fatal() -> None:
    assert isinstance(translate_error(NoCredentialsError(), "ReceiveMessage"), QueueFatalError)


class FailingSqsClient:
    """Raises the given error from every call and records the call names."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        def call(**kwargs: Any) -> Any:
            self.calls.append(name)
            raise self.error

        return call


@pytest.mark.parametrize(
    "error",
    [
        client_error("ReceiptHandleIsInvalid"),
        client_error("AWS.SimpleQueueService.ReceiptHandleIsInvalid"),
        client_error(
            "InvalidParameterValue",
            "Value x for parameter ReceiptHandle is invalid. "
            "Reason: The receipt handle has expired.",
        ),
        client_error("MessageNotInflight"),
    ],
)
def test_a_vanished_receipt_handle_is_logged_not_raised(
    error: ClientError, caplog: pytest.LogCaptureFixture
) -> None:
    queue = SqsJobQueue(FailingSqsClient(error), "http://sqs/q")
    with caplog.at_level(logging.WARNING):
        queue.delete(MESSAGE)
        queue.change_visibility(MESSAGE, 0)
    assert [r.getMessage() for r in caplog.records] == ["receipt_handle_gone"] * 2


def test_other_invalid_parameters_on_delete_are_raised() -> None:
    queue = SqsJobQueue(FailingSqsClient(client_error("InvalidParameterValue", "bad url")), "u")
    with pytest.raises(QueueTransientError):
        queue.delete(MESSAGE)


@pytest.mark.parametrize("method", ["receive", "send", "delete"])
def test_every_operation_translates(method: str) -> None:
    queue = SqsJobQueue(FailingSqsClient(client_error("AccessDenied")), "u")
    calls = {
        "receive": lambda: queue.receive(1, 0, None),
        "send": lambda: queue.send("{}"),
        "delete": lambda: queue.delete(MESSAGE),
    }
    with pytest.raises(QueueFatalError):
        calls[method]()
