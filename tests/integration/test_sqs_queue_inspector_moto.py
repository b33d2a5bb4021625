"""SqsQueueInspector against moto: each depth from its own attribute, peeks handed back."""

from __future__ import annotations

import datetime as dt
import json

from fakes import FakeClock
from nrf.adapters.job_queue.sqs_queue_inspector import SqsQueueInspector
from nrf.domain.ops_ports import QueueFigures, WaitingJob
from support.moto_server import MotoServer
from support.worker_jobs import job_body, make_queues

NOW = 1_700_000_000.0


def test_each_depth_comes_from_its_own_attribute(aws: MotoServer) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "inspected")
    # Four waiting; one of them received and hidden for 300 s; two delayed 900 s; three in
    # the DLQ. Every figure different, so a figure read from the wrong attribute shows.
    for n in range(4):
        sqs.send_message(QueueUrl=queues.url, MessageBody=job_body(f"job-{n}"))
    sqs.receive_message(QueueUrl=queues.url, MaxNumberOfMessages=1, VisibilityTimeout=300)
    for n in range(2):
        sqs.send_message(QueueUrl=queues.url, MessageBody=job_body(f"late-{n}"), DelaySeconds=900)
    for n in range(3):
        sqs.send_message(QueueUrl=queues.dlq_url, MessageBody=job_body(f"dead-{n}"))
    inspector = SqsQueueInspector(sqs, queues.url, queues.dlq_url, FakeClock(NOW))
    # 4 sent - 1 received = 3 visible; 1 in flight; 2 delayed; 3 dead.
    assert inspector.figures() == QueueFigures(visible=3, in_flight=1, delayed=2, dlq_visible=3)


def test_an_empty_dlq_reads_zero_and_no_dlq_reads_zero(aws: MotoServer) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "quiet")
    sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("job-1"))
    with_dlq = SqsQueueInspector(sqs, queues.url, queues.dlq_url, FakeClock(NOW))
    without = SqsQueueInspector(sqs, queues.url, None, FakeClock(NOW))
    expected = QueueFigures(visible=1, in_flight=0, delayed=0, dlq_visible=0)
    assert with_dlq.figures() == expected
    assert without.figures() == expected


def test_a_peek_names_the_waiting_jobs_and_hands_them_back(aws: MotoServer) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "peeked")
    sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("job-1"))
    sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("job-2", email=None))
    sqs.send_message(QueueUrl=queues.url, MessageBody="not json, and names no job")
    sqs.send_message(
        QueueUrl=queues.url,
        MessageBody=json.dumps({"job_id": "job-3", "email": "x@example.gov.uk", "bad": 1}),
    )
    inspector = SqsQueueInspector(sqs, queues.url, queues.dlq_url, FakeClock(NOW))
    seen = sorted(inspector.peek(10), key=lambda job: job.job_id)
    assert [(j.job_id, j.email) for j in seen] == [
        ("job-1", "planner@example.gov.uk"),
        ("job-2", None),
        ("job-3", "x@example.gov.uk"),  # invalid, but it names its job and its requester
    ]
    assert all(isinstance(j, WaitingJob) and j.sent_at is not None for j in seen)
    # Handed back at once: all four visible again, none left in flight.
    assert inspector.figures() == QueueFigures(visible=4, in_flight=0, delayed=0, dlq_visible=0)


def test_the_oldest_age_is_cloudwatchs_latest_maximum_or_none(aws: MotoServer) -> None:
    sqs, cloudwatch = aws.client("sqs"), aws.client("cloudwatch")
    queues = make_queues(sqs, "aged")
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    # Two minutes of figures: 120 s then 180 s; the latest (180) is the answer.
    for minutes_ago, age in ((2, 120.0), (1, 180.0)):
        cloudwatch.put_metric_data(
            Namespace="AWS/SQS",
            MetricData=[
                {
                    "MetricName": "ApproximateAgeOfOldestMessage",
                    "Dimensions": [{"Name": "QueueName", "Value": "aged"}],
                    "Timestamp": now - dt.timedelta(minutes=minutes_ago),
                    "Value": age,
                }
            ],
        )
    clock = FakeClock(now.timestamp())
    assert SqsQueueInspector(sqs, queues.url, None, clock).oldest_age_seconds() is None
    inspector = SqsQueueInspector(sqs, queues.url, None, clock, cloudwatch=cloudwatch)
    assert inspector.oldest_age_seconds() == 180.0
    other = make_queues(sqs, "fresh")
    fresh = SqsQueueInspector(sqs, other.url, None, clock, cloudwatch=cloudwatch)
    assert fresh.oldest_age_seconds() is None  # no figure for that queue yet
