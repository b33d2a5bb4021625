"""GovUkNotifyNotifier with the real Notify client over HTTP to a local fake Notify API."""

from __future__ import annotations

import logging

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

from fakes import FakeClock, FakeSleeper
from nrf.adapters.notifier.govuk_notify_notifier import GovUkNotifyNotifier
from nrf.adapters.notifier.notification_delivery import SendRetryPolicy
from nrf.domain.jobs import Notification, NotificationKind
from support.fake_notify import FakeNotifyServer

TEMPLATES = {NotificationKind.COMPLETED: "11111111-0000-0000-0000-000000000001"}
COMPLETED = Notification(
    kind=NotificationKind.COMPLETED,
    recipient="dev@example.gov.uk",
    job_id="NRF-000001",
    personalisation={"job_id": "NRF-000001", "levyAmount": "£2,500.00"},
    reference="NRF-000001",
)


def make(
    server: FakeNotifyServer, sleeper: FakeSleeper, *, timeout: float = 5.0, attempts: int = 4
) -> GovUkNotifyNotifier:
    server.templates[TEMPLATES[NotificationKind.COMPLETED]] = frozenset({"job_id", "levyAmount"})
    return GovUkNotifyNotifier.from_api_key(
        server.api_key,
        TEMPLATES,
        base_url=server.base_url,
        timeout=timeout,
        sleeper=sleeper,
        clock=FakeClock(),
        policy=SendRetryPolicy(max_attempts=attempts, base_delay=0.01, max_delay=0.05),
    )


def test_an_email_is_sent_with_a_valid_token(fake_notify: FakeNotifyServer) -> None:
    sleeper = FakeSleeper()
    record = make(fake_notify, sleeper).send(COMPLETED)
    assert record.sent, record.error
    [email] = fake_notify.emails
    assert record.provider_id == email["id"]
    assert email["email_address"] == "dev@example.gov.uk"
    assert email["template_id"] == TEMPLATES[NotificationKind.COMPLETED]
    assert email["personalisation"] == {"job_id": "NRF-000001", "levyAmount": "£2,500.00"}
    assert email["reference"] == "NRF-000001"
    assert sleeper.sleeps == []


def test_the_fake_refuses_a_token_signed_with_another_secret(
    fake_notify: FakeNotifyServer,
) -> None:
    # Proves the fake really checks the JWT, so the success above means something.
    wrong_key = fake_notify.api_key[:-36] + "00000000-0000-0000-0000-000000000000"
    notifier = GovUkNotifyNotifier(
        NotificationsAPIClient(wrong_key, base_url=fake_notify.base_url, timeout=5),
        TEMPLATES,
        sleeper=FakeSleeper(),
        clock=FakeClock(),
    )
    record = notifier.send(COMPLETED)
    assert (record.sent, record.attempts) == (False, 1)
    assert record.error is not None and record.error.startswith("http_403")
    assert fake_notify.emails == []


def test_429_then_success(fake_notify: FakeNotifyServer) -> None:
    fake_notify.fail_next(1, 429)
    sleeper = FakeSleeper()
    record = make(fake_notify, sleeper).send(COMPLETED)
    assert (record.sent, record.attempts, len(sleeper.sleeps)) == (True, 2, 1)
    assert len(fake_notify.emails) == 1


def test_500_every_time_gives_up_after_the_bounded_attempts(fake_notify: FakeNotifyServer) -> None:
    fake_notify.fail_next(10, 500)
    sleeper = FakeSleeper()
    record = make(fake_notify, sleeper, attempts=3).send(COMPLETED)
    assert (record.sent, record.attempts, len(sleeper.sleeps)) == (False, 3, 2)
    assert record.error is not None and record.error.startswith("http_500")
    assert fake_notify.requests == 3
    assert fake_notify.emails == []


@pytest.mark.parametrize("status", [400, 403])
def test_400_and_403_are_not_retried(fake_notify: FakeNotifyServer, status: int) -> None:
    fake_notify.fail_next(1, status)
    record = make(fake_notify, FakeSleeper()).send(COMPLETED)
    assert (record.sent, record.attempts) == (False, 1)
    assert fake_notify.requests == 1


def test_a_hanging_api_times_out_and_is_retried(fake_notify: FakeNotifyServer) -> None:
    fake_notify.hang_next(1)
    alone = make(fake_notify, FakeSleeper(), timeout=0.5, attempts=1).send(COMPLETED)
    # Given up by the client's own timeout: had it waited, the fake would have answered
    # 500 ("released") after its 30 s instead.
    assert (alone.sent, alone.pending, alone.error) == (False, True, "timeout")

    fake_notify.hang_next(1)
    sleeper = FakeSleeper()
    record = make(fake_notify, sleeper, timeout=0.5).send(COMPLETED)
    assert (record.sent, record.attempts, len(sleeper.sleeps)) == (True, 2, 1)
    assert fake_notify.requests == 1 + 2 and len(fake_notify.emails) == 1


def test_the_api_key_never_appears_in_any_log_line(
    fake_notify: FakeNotifyServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_notify.fail_next(2, 500)
    fake_notify.fail_next(1, 400)
    with caplog.at_level(logging.DEBUG):
        notifier = make(fake_notify, FakeSleeper())
        notifier.send(COMPLETED)
        notifier.send(COMPLETED)
    assert caplog.records, "expected the client and the adapter to log something"
    secret = fake_notify.api_key[-36:]
    for line in caplog.records:
        text = line.getMessage() + " " + repr(line.__dict__)
        assert secret not in text
        assert fake_notify.api_key not in text


def test_the_fake_refuses_unknown_templates_and_missing_personalisation(
    fake_notify: FakeNotifyServer,
) -> None:
    # As Notify does: so a success against the fake means the template and fields were right.
    notifier = make(fake_notify, FakeSleeper())
    short = Notification(
        kind=NotificationKind.COMPLETED,
        recipient="dev@example.gov.uk",
        job_id="NRF-000001",
        personalisation={"job_id": "NRF-000001"},
        reference="NRF-000001",
    )
    missing = notifier.send(short)
    fake_notify.templates.clear()
    unknown = notifier.send(COMPLETED)
    assert not missing.sent and not unknown.sent
    assert fake_notify.emails == [] and len(fake_notify.refused) == 2
