"""Shared by the email notifiers: recipient checks and bounded, jittered retries."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable

from attrs import frozen

from nrf.domain.email_address import is_valid_email
from nrf.domain.jobs import Notification, NotificationFailed, NotificationRecord
from nrf.domain.ports import Clock, Sleeper


def recipient_problem(address: str, allowed_domains: frozenset[str]) -> str | None:
    """``invalid_email`` or ``recipient_domain_not_allowed``, or None when sendable."""
    if not is_valid_email(address):
        return "invalid_email"
    domain = address.rsplit("@", 1)[1].lower()
    if allowed_domains and domain not in allowed_domains:
        return "recipient_domain_not_allowed"
    return None


def normalise_domains(domains: Iterable[str]) -> frozenset[str]:
    return frozenset(d.strip().lower() for d in domains if d.strip())


def full_jitter(cap: float) -> float:
    return random.uniform(0.0, cap)


@frozen(kw_only=True)
class SendRetryPolicy:
    """At most ``max_attempts`` tries, delays doubling from ``base_delay`` to ``max_delay``.

    No retry starts once ``max_total_seconds`` would be passed, counting the
    time the attempts themselves took.
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_total_seconds: float = 30.0

    def delay_cap(self, failed_attempts: int) -> float:
        return min(self.max_delay, self.base_delay * 2 ** (failed_attempts - 1))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Blank out every secret, in case a provider echoes one back."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def refused(notification: Notification, problem: str) -> NotificationRecord:
    """The record of a notification not even attempted (bad address, domain, template)."""
    return NotificationRecord(
        kind=notification.kind, recipient=notification.recipient, sent=False, error=problem
    )


def deliver(
    notification: Notification,
    attempt: Callable[[], str | None],
    *,
    policy: SendRetryPolicy,
    sleeper: Sleeper,
    clock: Clock,
    jitter: Callable[[float], float] = full_jitter,
) -> NotificationRecord:
    """Call ``attempt`` until it returns a provider id or fails for good.

    ``attempt`` raises NotificationFailed; whether to retry is its ``retryable``.
    Never raises: the outcome is the returned record.
    """
    started = clock.now()
    attempts = 0
    while True:
        attempts += 1
        try:
            provider_id = attempt()
        except NotificationFailed as exc:
            error, retryable = exc.message, exc.retryable
        else:
            return NotificationRecord(
                kind=notification.kind,
                recipient=notification.recipient,
                sent=True,
                provider_id=provider_id,
                error=None,
                attempts=attempts,
            )
        delay = jitter(policy.delay_cap(attempts))
        out_of_time = clock.now() - started + delay > policy.max_total_seconds
        if not retryable or attempts >= policy.max_attempts or out_of_time:
            # A retryable failure stays pending: the job's next delivery tries again.
            return NotificationRecord(
                kind=notification.kind,
                recipient=notification.recipient,
                sent=False,
                provider_id=None,
                error=error,
                attempts=attempts,
                pending=retryable,
            )
        sleeper.sleep(delay)


def log_outcome(
    logger: logging.Logger, record: NotificationRecord, notification: Notification, provider: str
) -> None:
    """One log line per notification, sent or not, with no address and no key."""
    event = "notification_sent" if record.sent else "notification_not_sent"
    logger.info(
        event,
        extra={
            "event": event,
            "provider": provider,
            "kind": record.kind.value,
            "job_id": notification.job_id,
            "attempts": record.attempts,
            "provider_id": record.provider_id,
            "error": record.error,
        },
    )


def send_or_refuse(
    notification: Notification,
    problem: str | None,
    attempt: Callable[[], str | None],
    *,
    policy: SendRetryPolicy,
    sleeper: Sleeper,
    clock: Clock,
    jitter: Callable[[float], float],
    logger: logging.Logger,
    provider: str,
) -> NotificationRecord:
    """Refuse for ``problem`` or deliver through ``attempt``; either way log the outcome once."""
    if problem is not None:
        record = refused(notification, problem)
    else:
        record = deliver(
            notification, attempt, policy=policy, sleeper=sleeper, clock=clock, jitter=jitter
        )
    log_outcome(logger, record, notification, provider)
    return record
