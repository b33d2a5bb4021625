"""SqsJobQueue over real HTTP against moto's standalone server."""

from __future__ import annotations

import json
import time

import pytest

from nrf.adapters.job_queue.sqs_job_queue import SqsJobQueue
from nrf.domain.jobs import QueueFatalError, QueueTransientError
from support.moto_server import MotoServer, aws_client, client_config, free_port


def make_queue(
    aws: MotoServer, name: str = "nrf_impact_assessment_queue", **attributes: str
) -> SqsJobQueue:
    sqs = aws.client("sqs")
    sqs.create_queue(QueueName=name, Attributes=attributes)
    return SqsJobQueue.from_queue_name(sqs, name)


def test_send_receive_delete(aws: MotoServer) -> None:
    queue = make_queue(aws)
    before = time.time()
    message_id = queue.send('{"job_id": "NRF-000001"}')
    after = time.time()
    [message] = queue.receive(max_messages=10, wait_seconds=1, visibility_timeout=30)
    assert message.message_id == message_id
    assert json.loads(message.body) == {"job_id": "NRF-000001"}
    assert message.receive_count == 1
    # Seconds since the epoch, taken while it was sent (SQS keeps whole milliseconds).
    assert message.sent_at is not None and before - 0.001 <= message.sent_at <= after
    queue.delete(message)
    assert queue.receive(max_messages=1, wait_seconds=0, visibility_timeout=0) == []


def test_a_received_message_is_hidden_until_its_visibility_ends(aws: MotoServer) -> None:
    queue = make_queue(aws)
    queue.send("job")
    [first] = queue.receive(1, 0, visibility_timeout=30)
    assert queue.receive(1, 0, None) == []  # hidden from a second consumer
    queue.change_visibility(first, 0)  # hand it back at once
    [again] = queue.receive(1, 0, visibility_timeout=30)
    assert again.message_id == first.message_id
    assert again.receive_count == 2
    assert again.receipt_handle != first.receipt_handle


def test_a_message_that_keeps_failing_is_redriven_to_the_dlq(aws: MotoServer) -> None:
    sqs = aws.client("sqs")
    dlq_url = sqs.create_queue(QueueName="nrf-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "3"})
    queue = make_queue(aws, "nrf-jobs", RedrivePolicy=policy)
    queue.send("poison")
    counts = []
    for _ in range(3):  # visibility 0: every receive is a failed attempt
        [message] = queue.receive(1, 0, visibility_timeout=0)
        counts.append(message.receive_count)
    assert counts == [1, 2, 3]
    assert queue.receive(1, 0, visibility_timeout=0) == []
    [dead] = SqsJobQueue(sqs, dlq_url).receive(1, 0, None)
    assert dead.body == "poison"


def test_deleting_twice_is_not_fatal(aws: MotoServer) -> None:
    queue = make_queue(aws)
    queue.send("job")
    [message] = queue.receive(1, 0, 30)
    queue.delete(message)
    queue.delete(message)  # at-least-once: a second delete must not stop the worker
    # The message is gone for good, neither waiting nor in flight, and the queue still
    # serves the next message.
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    found = aws.client("sqs").get_queue_attributes(QueueUrl=queue.queue_url, AttributeNames=names)
    assert found["Attributes"] == {name: "0" for name in names}
    queue.send("next")
    [following] = queue.receive(1, 0, 30)
    assert following.body == "next" and following.message_id != message.message_id


def test_a_missing_queue_is_fatal(aws: MotoServer) -> None:
    sqs = aws.client("sqs")
    with pytest.raises(QueueFatalError):
        SqsJobQueue.from_queue_name(sqs, "no_such_queue")
    queue = make_queue(aws)
    sqs.delete_queue(QueueUrl=queue.queue_url)
    with pytest.raises(QueueFatalError):
        queue.receive(1, 0, None)


def test_an_endpoint_that_is_down_is_transient() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    sqs = aws_client("sqs", endpoint, client_config(read_timeout=2, attempts=1))
    queue = SqsJobQueue(sqs, f"{endpoint}/123456789012/nrf")
    requests: list[str] = []
    sqs.meta.events.register("before-send", lambda **kw: requests.append(kw["request"].url))
    with pytest.raises(QueueTransientError):
        queue.receive(1, 0, None)
    with pytest.raises(QueueTransientError):
        queue.send("job")
    # Two tries per call, as the client is configured (botocore's max_attempts=1 counts
    # retries: one try + one retry): the adapter reports at once, it adds no retries of its own.
    assert len(requests) == 2 * (1 + 1)
