"""SesNotifier: the Notifier port over Amazon SES v2, plain-text emails."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from nrf.adapters.notifier.notification_delivery import (
    SendRetryPolicy,
    full_jitter,
    normalise_domains,
    recipient_problem,
    send_or_refuse,
)
from nrf.domain.jobs import Notification, NotificationFailed, NotificationKind, NotificationRecord
from nrf.domain.ports import Clock, Sleeper

logger = logging.getLogger(__name__)

SUBJECTS: Mapping[NotificationKind, str] = {
    NotificationKind.STARTED: "Nutrient assessment {reference} has started",
    NotificationKind.COMPLETED: "Nutrient assessment {reference} is complete",
    NotificationKind.FAILED: "Nutrient assessment {reference} failed",
    NotificationKind.DEAD_LETTERED: "Nutrient assessment {reference} could not be processed",
    NotificationKind.QUEUE_STALLED: "Nutrient assessments: {reference}",
    NotificationKind.QUOTE_REFUSED: "Nutrient assessment {reference}: no levy quoted",
    NotificationKind.DELAYED: "Nutrient assessment {reference} is delayed",
}
OPENINGS: Mapping[NotificationKind, str] = {
    NotificationKind.STARTED: "We have started your nutrient impact assessment.",
    NotificationKind.COMPLETED: "Your nutrient impact assessment is complete.",
    NotificationKind.FAILED: "A nutrient impact assessment failed.",
    NotificationKind.DEAD_LETTERED: "A nutrient impact assessment was dead-lettered "
    "after repeated failures and needs attention.",
    NotificationKind.QUEUE_STALLED: "The nutrient assessment queue needs attention.",
    NotificationKind.QUOTE_REFUSED: "A quote from Defra's service was given no levy, so no "
    "result was sent to its backend; the reason is below.",
    NotificationKind.DELAYED: "Your nutrient impact assessment is taking longer than usual; "
    "it has not been lost, and you will hear from us when it is done.",
}
_RETRYABLE_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
        "ServiceUnavailable",
        "InternalFailure",
        "InternalServiceError",
    }
)


def email_text(notification: Notification) -> tuple[str, str]:
    """Subject and text body: an opening line, then one ``key: value`` line per field."""
    reference = notification.reference or notification.job_id
    subject = SUBJECTS[notification.kind].format(reference=reference)
    lines = [OPENINGS[notification.kind], "", f"Reference: {reference}"]
    lines += [f"{key}: {value}" for key, value in sorted(notification.personalisation.items())]
    return subject, "\n".join(lines) + "\n"


class SesNotifier:
    """Sends from one verified address; same recipient and retry rules as Notify."""

    def __init__(
        self,
        client: Any,
        from_address: str,
        *,
        sleeper: Sleeper,
        clock: Clock,
        allowed_domains: Iterable[str] = (),
        policy: SendRetryPolicy | None = None,
        jitter: Callable[[float], float] = full_jitter,
        renderer: Callable[[Notification], tuple[str, str]] = email_text,
    ) -> None:
        self._client = client
        self._from = from_address
        self._sleeper = sleeper
        self._clock = clock
        self._allowed = normalise_domains(allowed_domains)
        self._policy = policy or SendRetryPolicy()
        self._jitter = jitter
        self._render = renderer

    def send(self, notification: Notification) -> NotificationRecord:
        problem = recipient_problem(notification.recipient, self._allowed)
        return send_or_refuse(
            notification,
            problem,
            lambda: self._attempt(notification),
            policy=self._policy,
            sleeper=self._sleeper,
            clock=self._clock,
            jitter=self._jitter,
            logger=logger,
            provider="ses",
        )

    def sent_before(self, notification: Notification) -> bool | None:
        """SES keeps no lookup by reference: the caller must decide without knowing."""
        return None

    def _attempt(self, notification: Notification) -> str | None:
        subject, body = self._render(notification)
        try:
            response = self._client.send_email(
                FromEmailAddress=self._from,
                Destination={"ToAddresses": [notification.recipient]},
                Content={
                    "Simple": {
                        "Subject": {"Data": subject, "Charset": "UTF-8"},
                        "Body": {"Text": {"Data": body, "Charset": "UTF-8"}},
                    }
                },
            )
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", "unknown"))
            status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
            retryable = code in _RETRYABLE_CODES or status == 429 or status >= 500
            raise NotificationFailed(f"ses_{code}", retryable=retryable) from None
        except BotoCoreError as exc:  # timeouts and dropped connections
            raise NotificationFailed(f"ses_{type(exc).__name__}", retryable=True) from None
        return str(response.get("MessageId")) if response.get("MessageId") else None
