"""SqsQueueInspector: queue and DLQ depths from SQS attributes, the oldest age from CloudWatch.

SQS has no attribute for the age of the oldest message: only CloudWatch's
``ApproximateAgeOfOldestMessage`` (published by SQS once a minute) says it. Where CloudWatch
has no figure (moto, LocalStack, a new queue, no permission) the age is None and callers fall
back to what they observed themselves.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.job_queue.job_message import InvalidJobMessage, parse_job_message
from nrf.adapters.job_queue.sqs_job_queue import to_message, translate_error
from nrf.domain.jobs import QueueMessage
from nrf.domain.ops_ports import QueueFigures, WaitingJob
from nrf.domain.ports import Clock

log = logging.getLogger("nrf.status")

_DEPTHS = [
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
]
# Long enough to sweep the queue once, short enough that a worker coming back soon finds
# the messages; each is made visible again straight after.
PEEK_VISIBILITY = 30


class SqsQueueInspector:
    """One queue and (optionally) its DLQ; ``cloudwatch`` None means no age figure."""

    def __init__(
        self,
        sqs: Any,
        queue_url: str,
        dlq_url: str | None,
        clock: Clock,
        cloudwatch: Any = None,
    ) -> None:
        self._sqs, self._url, self._dlq_url = sqs, queue_url, dlq_url
        self._clock, self._cloudwatch = clock, cloudwatch

    def figures(self) -> QueueFigures:
        main = self._attributes(self._url)
        dlq = self._attributes(self._dlq_url) if self._dlq_url else {}
        return QueueFigures(
            visible=int(main.get(_DEPTHS[0], 0)),
            in_flight=int(main.get(_DEPTHS[1], 0)),
            delayed=int(main.get(_DEPTHS[2], 0)),
            dlq_visible=int(dlq.get(_DEPTHS[0], 0)),
        )

    def oldest_age_seconds(self) -> float | None:
        if self._cloudwatch is None:
            return None
        name = self._url.rstrip("/").rsplit("/", 1)[-1]
        end = dt.datetime.fromtimestamp(self._clock.now(), dt.UTC)
        try:
            answer = self._cloudwatch.get_metric_statistics(
                Namespace="AWS/SQS",
                MetricName="ApproximateAgeOfOldestMessage",
                Dimensions=[{"Name": "QueueName", "Value": name}],
                StartTime=end - dt.timedelta(minutes=10),
                EndTime=end,
                Period=60,
                Statistics=["Maximum"],
            )
        except (ClientError, BotoCoreError) as exc:
            log.warning("oldest_age_unavailable", extra={"error": str(exc)})
            return None
        points = sorted(answer.get("Datapoints", []), key=lambda p: p["Timestamp"])
        return float(points[-1]["Maximum"]) if points else None

    def peek(self, limit: int) -> list[WaitingJob]:
        return [job for m in self._sweep(limit) if (job := _waiting(m)) is not None]

    def _sweep(self, limit: int) -> list[QueueMessage]:
        seen: dict[str, QueueMessage] = {}
        try:
            while len(seen) < limit:
                answer = self._sqs.receive_message(
                    QueueUrl=self._url,
                    MaxNumberOfMessages=min(10, limit - len(seen)),
                    WaitTimeSeconds=0,
                    VisibilityTimeout=PEEK_VISIBILITY,
                    AttributeNames=["ApproximateReceiveCount", "SentTimestamp"],
                )
                batch = [to_message(raw) for raw in answer.get("Messages", [])]
                if not batch:
                    break
                seen.update((m.message_id, m) for m in batch)
        except (ClientError, BotoCoreError) as exc:
            raise translate_error(exc, "ReceiveMessage") from exc
        finally:
            self._hand_back(list(seen.values()))
        return list(seen.values())

    def _hand_back(self, messages: list[QueueMessage]) -> None:
        for message in messages:
            try:
                self._sqs.change_message_visibility(
                    QueueUrl=self._url, ReceiptHandle=message.receipt_handle, VisibilityTimeout=0
                )
            except (ClientError, BotoCoreError) as exc:  # it comes back after 30 s anyway
                log.warning("peek_hand_back_failed", extra={"error": str(exc)})

    def _attributes(self, url: str) -> dict[str, str]:
        try:
            answer = self._sqs.get_queue_attributes(QueueUrl=url, AttributeNames=_DEPTHS)
        except (ClientError, BotoCoreError) as exc:
            raise translate_error(exc, "GetQueueAttributes") from exc
        return dict(answer.get("Attributes", {}))


def _waiting(message: QueueMessage) -> WaitingJob | None:
    """Parsed here, at the edge; a message that names no job is nobody's to tell."""
    try:
        request = parse_job_message(message.body)
        job_id, email = request.job_id, request.email
    except InvalidJobMessage as exc:
        if exc.job_id is None:
            return None
        job_id, email = exc.job_id, exc.email
    return WaitingJob(job_id, email, message.sent_at)
