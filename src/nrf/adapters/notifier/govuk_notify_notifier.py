"""GovUkNotifyNotifier: the Notifier port over the official GOV.UK Notify client."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import requests
from notifications_python_client.errors import APIError, TokenError
from notifications_python_client.notifications import NotificationsAPIClient

from nrf.adapters.notifier.notification_delivery import (
    SendRetryPolicy,
    full_jitter,
    normalise_domains,
    recipient_problem,
    refused,
    scrub,
    send_or_refuse,
)
from nrf.domain.jobs import (
    NO_TEMPLATE,
    Notification,
    NotificationFailed,
    NotificationKind,
    NotificationRecord,
)
from nrf.domain.ports import Clock, Sleeper

logger = logging.getLogger(__name__)

NOTIFY_BASE_URL = "https://api.notifications.service.gov.uk"


class NotifyEmailClient(Protocol):
    """The one call this adapter makes on ``NotificationsAPIClient``."""

    def send_email_notification(
        self,
        email_address: str,
        template_id: str,
        personalisation: dict[str, str] | None = None,
        reference: str | None = None,
    ) -> Any: ...

    def get_all_notifications(
        self,
        status: str | None = None,
        template_type: str | None = None,
        reference: str | None = None,
    ) -> Any: ...


class GovUkNotifyNotifier:
    """Sends each kind of notification with its Notify template."""

    def __init__(
        self,
        client: NotifyEmailClient,
        templates: Mapping[NotificationKind, str],
        *,
        sleeper: Sleeper,
        clock: Clock,
        allowed_domains: Iterable[str] = (),
        policy: SendRetryPolicy | None = None,
        jitter: Callable[[float], float] = full_jitter,
        secrets: Iterable[str] = (),
    ) -> None:
        self._client = client
        self._templates = {NotificationKind(k): v for k, v in templates.items() if v}
        self._sleeper = sleeper
        self._clock = clock
        self._allowed = normalise_domains(allowed_domains)
        self._policy = policy or SendRetryPolicy()
        self._jitter = jitter
        self._secrets = tuple(s for s in secrets if s)

    @classmethod
    def from_api_key(
        cls,
        api_key: str,
        templates: Mapping[NotificationKind, str],
        *,
        base_url: str = NOTIFY_BASE_URL,
        timeout: float = 10.0,
        **options: Any,
    ) -> GovUkNotifyNotifier:
        """Build the real client; the key is kept only for scrubbing error text."""
        client = NotificationsAPIClient(api_key, base_url=base_url, timeout=timeout)
        return cls(client, templates, secrets=(api_key, api_key[-36:]), **options)

    def send(self, notification: Notification) -> NotificationRecord:
        problem = recipient_problem(notification.recipient, self._allowed)
        template = self._templates.get(notification.kind, "")  # empty ids were dropped above
        if problem is None and not template:
            # Left blank on purpose (the worker says which at start): nothing to log per job.
            return refused(notification, NO_TEMPLATE)
        return send_or_refuse(
            notification,
            problem,
            lambda: self._attempt(notification, template),
            policy=self._policy,
            sleeper=self._sleeper,
            clock=self._clock,
            jitter=self._jitter,
            logger=logger,
            provider="govuk_notify",
        )

    def sent_before(self, notification: Notification) -> bool | None:
        """Ask Notify for emails with this reference: same template and recipient means sent."""
        template = self._templates.get(notification.kind)
        if template is None:
            return False
        reference = notification.reference or notification.job_id
        try:
            answer = self._client.get_all_notifications(template_type="email", reference=reference)
        except APIError as exc:
            raise self._failure(exc) from None
        except Exception as exc:  # a lookup that cannot be read is a lookup that failed
            failure = f"lookup_failed: {type(exc).__name__}"
            raise NotificationFailed(failure, retryable=True) from None
        found = answer.get("notifications", []) if isinstance(answer, dict) else []
        recipient = notification.recipient.lower()
        return any(
            str(n.get("email_address", "")).lower() == recipient
            and (n.get("template") or {}).get("id") == template
            for n in found
        )

    def _attempt(self, notification: Notification, template_id: str) -> str | None:
        try:
            response = self._client.send_email_notification(
                email_address=notification.recipient,
                template_id=template_id,
                personalisation=dict(notification.personalisation),
                reference=notification.reference or notification.job_id,
            )
        except APIError as exc:
            raise self._failure(exc) from None
        except TokenError:
            raise NotificationFailed("token_error", retryable=False) from None
        except Exception as exc:  # a notifier must never fail a computed result
            failure = f"unexpected_error: {type(exc).__name__}"
            raise NotificationFailed(failure, retryable=False) from None
        return str(response.get("id")) if isinstance(response, dict) else None

    def _failure(self, exc: APIError) -> NotificationFailed:
        if isinstance(exc.__cause__, requests.Timeout):
            return NotificationFailed("timeout", retryable=True)
        if exc.response is None:  # no answer at all: connection refused or reset
            return NotificationFailed("connection_error", retryable=True)
        status = exc.status_code
        detail = scrub(str(exc.message), self._secrets)[:200]
        retryable = status == 429 or status >= 500
        return NotificationFailed(f"http_{status}: {detail}", retryable=retryable)
