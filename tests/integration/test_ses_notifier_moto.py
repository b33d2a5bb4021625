"""SesNotifier over real HTTP against moto's standalone server (SES v2)."""

from __future__ import annotations

from moto.backends import get_backend
from moto.core import DEFAULT_ACCOUNT_ID

from fakes import FakeClock, FakeSleeper
from nrf.adapters.notifier.ses_notifier import SesNotifier
from nrf.domain.jobs import Notification, NotificationKind
from support.moto_server import REGION, MotoServer

SENDER = "nrf@example.gov.uk"
COMPLETED = Notification(
    kind=NotificationKind.COMPLETED,
    recipient="dev@example.gov.uk",
    job_id="NRF-000001",
    personalisation={"development_name": "Mill Lane"},
    reference="NRF-000001",
)


def notifier(aws: MotoServer, sleeper: FakeSleeper) -> SesNotifier:
    clock = FakeClock()
    return SesNotifier(aws.client("sesv2"), SENDER, sleeper=sleeper, clock=clock)


def sent_messages() -> list[object]:
    # The threaded server shares this process, so its backend can be inspected.
    return list(get_backend("ses")[DEFAULT_ACCOUNT_ID][REGION].sent_messages)


def test_a_verified_sender_sends_a_text_email(aws: MotoServer) -> None:
    aws.client("sesv2").create_email_identity(EmailIdentity=SENDER)
    sleeper = FakeSleeper()
    record = notifier(aws, sleeper).send(COMPLETED)
    assert record.sent, record.error
    assert record.provider_id
    assert (record.attempts, sleeper.sleeps) == (1, [])
    [message] = sent_messages()
    assert message.destinations == {"ToAddresses": ["dev@example.gov.uk"]}  # type: ignore[attr-defined]
    assert message.subject == "Nutrient assessment NRF-000001 is complete"  # type: ignore[attr-defined]
    assert "development_name: Mill Lane" in message.body  # type: ignore[attr-defined]


def test_an_unverified_sender_is_rejected_once_without_retries(aws: MotoServer) -> None:
    sleeper = FakeSleeper()
    record = notifier(aws, sleeper).send(COMPLETED)
    assert (record.sent, record.error, record.attempts) == (False, "ses_MessageRejected", 1)
    assert sleeper.sleeps == []
    assert sent_messages() == []
