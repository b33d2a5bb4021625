"""Notifier retry rules with a FakeSleeper and recording fake provider clients."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import requests
from botocore.exceptions import ClientError, EndpointConnectionError
from notifications_python_client.errors import HTTPError, TokenError

from fakes import FakeClock, FakeSleeper
from nrf.adapters.notifier.govuk_notify_notifier import GovUkNotifyNotifier
from nrf.adapters.notifier.log_notifier import LogNotifier, mask_email
from nrf.adapters.notifier.notification_delivery import SendRetryPolicy, full_jitter, is_valid_email
from nrf.adapters.notifier.ses_notifier import SesNotifier, email_text
from nrf.domain.jobs import Notification, NotificationKind

API_KEY = "nrf_live-11111111-2222-3333-4444-555555555555-66666666-7777-8888-9999-000000000000"
TEMPLATES = {NotificationKind.COMPLETED: "tpl-completed", NotificationKind.FAILED: "tpl-failed"}
# Delays of exactly the cap make the schedule hand-checkable. SendRetryPolicy's rule: the delay
# after the n-th failed attempt is min(max_delay, base_delay × 2^(n−1)) = min(10, 1 × 2^(n−1)):
# 1, 2, 4, 8, then 16 capped to 10, 10 ...; at most 4 attempts, so at most 3 sleeps.
POLICY = SendRetryPolicy(max_attempts=4, base_delay=1.0, max_delay=10.0, max_total_seconds=60.0)


def no_jitter(cap: float) -> float:
    return cap


def http_error(status: int, message: str = "boom") -> HTTPError:
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps(
        {"status_code": status, "errors": [{"error": "E", "message": message}]}
    ).encode()
    return HTTPError(response)


def timeout_error() -> HTTPError:
    # What the client raises when requests times out: no response, the cause kept.
    error = HTTPError(None)
    error.__cause__ = requests.ReadTimeout("read timed out")
    return error


class RecordingNotifyClient:
    """Plays back outcomes (an exception to raise or a response) and records calls."""

    def __init__(self, *outcomes: Any, clock: FakeClock | None = None, takes: float = 0.0):
        self.outcomes = list(outcomes)
        self.calls: list[dict[str, Any]] = []
        self.lookups: list[str | None] = []
        self._clock, self._takes = clock, takes

    def send_email_notification(
        self,
        email_address: str,
        template_id: str,
        personalisation: dict[str, str] | None = None,
        reference: str | None = None,
    ) -> Any:
        self.calls.append(
            {
                "email_address": email_address,
                "template_id": template_id,
                "personalisation": personalisation,
                "reference": reference,
            }
        )
        if self._clock is not None:
            self._clock.advance(self._takes)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def get_all_notifications(
        self,
        status: str | None = None,
        template_type: str | None = None,
        reference: str | None = None,
    ) -> Any:
        """Notify's lookup by reference: this client has never delivered anything."""
        self.lookups.append(reference)
        return {"notifications": []}


def completed(recipient: str = "dev@example.gov.uk") -> Notification:
    return Notification(
        kind=NotificationKind.COMPLETED,
        recipient=recipient,
        job_id="NRF-000001",
        personalisation={"development_name": "Mill Lane", "levyAmount": "£1,234.00"},
        reference="NRF-000001",
    )


def notify(
    client: RecordingNotifyClient, clock: FakeClock, sleeper: FakeSleeper, **options: Any
) -> GovUkNotifyNotifier:
    options.setdefault("policy", POLICY)
    return GovUkNotifyNotifier(
        client,
        TEMPLATES,
        sleeper=sleeper,
        clock=clock,
        jitter=no_jitter,
        secrets=(API_KEY,),
        **options,
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sleeper(clock: FakeClock) -> FakeSleeper:
    return FakeSleeper(clock)


def test_success_first_time_sends_template_personalisation_and_reference(
    clock: FakeClock, sleeper: FakeSleeper
) -> None:
    client = RecordingNotifyClient({"id": "n-1"})
    record = notify(client, clock, sleeper).send(completed())
    assert (record.sent, record.provider_id, record.attempts, record.error) == (
        True,
        "n-1",
        1,
        None,
    )
    assert client.calls == [
        {
            "email_address": "dev@example.gov.uk",
            "template_id": "tpl-completed",
            "personalisation": {"development_name": "Mill Lane", "levyAmount": "£1,234.00"},
            "reference": "NRF-000001",
        }
    ]
    assert sleeper.sleeps == []


def test_429_then_success_backs_off_exponentially(clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingNotifyClient(http_error(429), http_error(429), {"id": "n-3"})
    record = notify(client, clock, sleeper).send(completed())
    assert (record.sent, record.attempts) == (True, 3)  # two 429s, then the success
    assert sleeper.sleeps == [1.0, 2.0]  # after failure 1: 1 × 2^0 = 1; after 2: 1 × 2^1 = 2


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_every_time_gives_up_after_max_attempts(
    status: int, clock: FakeClock, sleeper: FakeSleeper
) -> None:
    client = RecordingNotifyClient(*[http_error(status)] * 4)
    record = notify(client, clock, sleeper).send(completed())
    assert (record.sent, record.attempts) == (False, 4)  # POLICY.max_attempts
    assert record.error is not None and record.error.startswith(f"http_{status}")
    # 1 × 2^0, 1 × 2^1, 1 × 2^2 (all under the cap of 10); no sleep after the 4th attempt.
    assert sleeper.sleeps == [1.0, 2.0, 4.0]


def test_the_delay_stops_doubling_at_the_cap(clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingNotifyClient(*[http_error(503)] * 6)
    policy = SendRetryPolicy(max_attempts=6, base_delay=1.0, max_delay=10.0, max_total_seconds=60.0)
    record = notify(client, clock, sleeper, policy=policy).send(completed())
    # min(10, 1 × 2^(n−1)) for n = 1..5: 1, 2, 4, 8, then 16 capped to 10. Time spent before
    # the last sleep is 1 + 2 + 4 + 8 = 15 s, and 15 + 10 = 25 <= 60, so the budget allows it.
    assert (record.sent, record.attempts) == (False, 6)
    assert sleeper.sleeps == [1.0, 2.0, 4.0, 8.0, 10.0]


@pytest.mark.parametrize("status", [400, 403, 404])
def test_client_errors_are_not_retried(status: int, clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingNotifyClient(http_error(status))
    record = notify(client, clock, sleeper).send(completed())
    assert (record.sent, record.attempts, len(client.calls)) == (False, 1, 1)
    assert record.error is not None and record.error.startswith(f"http_{status}")
    assert sleeper.sleeps == []


def test_timeouts_are_retried(clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingNotifyClient(timeout_error(), {"id": "n-2"})
    record = notify(client, clock, sleeper).send(completed())
    # One timeout, then the success: one sleep of 1 × 2^0 = 1 s.
    assert (record.sent, record.attempts, sleeper.sleeps) == (True, 2, [1.0])


def test_total_time_is_bounded_including_slow_attempts(clock: FakeClock) -> None:
    # Each attempt takes 3 s. t=3 fail, 3+1 <= 10 so sleep 1; t=7 fail, 7+2 <= 10
    # so sleep 2; t=12 fail, 12+4 > 10 so stop after 3 attempts.
    sleeper = FakeSleeper(clock)
    client = RecordingNotifyClient(*[http_error(500)] * 10, clock=clock, takes=3.0)
    policy = SendRetryPolicy(
        max_attempts=10, base_delay=1.0, max_delay=10.0, max_total_seconds=10.0
    )
    record = notify(client, clock, sleeper, policy=policy).send(completed())
    assert (record.sent, record.attempts, sleeper.sleeps) == (False, 3, [1.0, 2.0])


def test_token_errors_and_surprises_never_raise(clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingNotifyClient(TokenError("bad"), RuntimeError("odd"))
    notifier = notify(client, clock, sleeper)
    assert notifier.send(completed()).error == "token_error"
    assert notifier.send(completed()).error == "unexpected_error: RuntimeError"


def test_the_api_key_never_reaches_the_record_or_the_log(
    clock: FakeClock, sleeper: FakeSleeper, caplog: pytest.LogCaptureFixture
) -> None:
    client = RecordingNotifyClient(http_error(400, f"bad key {API_KEY}"))
    with caplog.at_level(logging.DEBUG):
        record = notify(client, clock, sleeper).send(completed())
    assert record.error is not None and "***" in record.error
    assert API_KEY[-36:] not in record.error
    assert API_KEY[-36:] not in caplog.text
    assert "notification_not_sent" in caplog.text


@pytest.mark.parametrize(
    ("recipient", "error"),
    [
        ("dev@elsewhere.com", "recipient_domain_not_allowed"),
        ("no-at-sign", "invalid_email"),
        ("a@b", "invalid_email"),
        ("a..b@example.gov.uk", "invalid_email"),
        (".a@example.gov.uk", "invalid_email"),
        ("a@example..gov.uk", "invalid_email"),
        ("a@-example.gov.uk", "invalid_email"),
        (" dev@example.gov.uk", "invalid_email"),
        ("dev@example.gov.uk\n", "invalid_email"),
        ("a@b@example.gov.uk", "invalid_email"),
    ],
)
def test_refused_recipients_are_never_sent_to(
    recipient: str, error: str, clock: FakeClock, sleeper: FakeSleeper
) -> None:
    client = RecordingNotifyClient()
    notifier = notify(client, clock, sleeper, allowed_domains=["Example.GOV.uk"])
    record = notifier.send(completed(recipient))
    assert (record.sent, record.error, record.attempts) == (False, error, 0)
    assert client.calls == []


def test_domains_compare_case_insensitively_and_empty_allows_all(
    clock: FakeClock, sleeper: FakeSleeper
) -> None:
    client = RecordingNotifyClient({"id": "1"}, {"id": "2"})
    assert (
        notify(client, clock, sleeper, allowed_domains=["example.gov.uk"])
        .send(completed("Dev@EXAMPLE.gov.uk"))
        .sent
    )
    assert notify(client, clock, sleeper).send(completed("dev@anywhere.org")).sent


def test_a_kind_without_a_template_is_not_sent(clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingNotifyClient()
    started = Notification(
        kind=NotificationKind.STARTED,
        recipient="dev@example.gov.uk",
        job_id="NRF-000001",
        personalisation={},
    )
    record = notify(client, clock, sleeper).send(started)
    assert (record.sent, record.error) == (False, "no_template_for_kind")
    assert client.calls == []


def test_full_jitter_stays_within_the_cap() -> None:
    samples = [full_jitter(4.0) for _ in range(500)]
    assert all(0.0 <= s <= 4.0 for s in samples)
    assert len(set(samples)) > 1


@pytest.mark.parametrize(
    "address", ["dev@example.gov.uk", "first.last+tag@sub.example.co.uk", "x_y-z@a-b.io"]
)
def test_ordinary_addresses_are_valid(address: str) -> None:
    assert is_valid_email(address)


# --- SES ------------------------------------------------------------------------------


def client_error(code: str, status: int) -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": code}, "ResponseMetadata": {"HTTPStatusCode": status}},
        "SendEmail",
    )


class RecordingSesClient:
    def __init__(self, *outcomes: Any) -> None:
        self.outcomes = list(outcomes)
        self.calls: list[dict[str, Any]] = []
        self.lookups: list[str | None] = []

    def send_email(self, **request: Any) -> Any:
        self.calls.append(request)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def get_all_notifications(
        self,
        status: str | None = None,
        template_type: str | None = None,
        reference: str | None = None,
    ) -> Any:
        """Notify's lookup by reference: this client has never delivered anything."""
        self.lookups.append(reference)
        return {"notifications": []}


def ses(client: RecordingSesClient, clock: FakeClock, sleeper: FakeSleeper) -> SesNotifier:
    return SesNotifier(
        client, "nrf@example.gov.uk", sleeper=sleeper, clock=clock, policy=POLICY, jitter=no_jitter
    )


@pytest.mark.parametrize(
    "error",
    [
        client_error("Throttling", 400),
        client_error("TooManyRequestsException", 429),
        client_error("InternalFailure", 500),
        client_error("Whatever", 503),
        EndpointConnectionError(endpoint_url="http://127.0.0.1:1"),
    ],
)
def test_ses_retries_throttling_5xx_and_network(
    error: Exception, clock: FakeClock, sleeper: FakeSleeper
) -> None:
    client = RecordingSesClient(error, {"MessageId": "ses-1"})
    record = ses(client, clock, sleeper).send(completed())
    assert (record.sent, record.provider_id, record.attempts) == (True, "ses-1", 2)
    assert sleeper.sleeps == [1.0]  # one failure: 1 × 2^0 = 1 s


@pytest.mark.parametrize("code", ["MessageRejected", "BadRequestException", "AccessDenied"])
def test_ses_does_not_retry_refusals(code: str, clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingSesClient(client_error(code, 400))
    record = ses(client, clock, sleeper).send(completed())
    assert (record.sent, record.error, record.attempts) == (False, f"ses_{code}", 1)


def test_ses_sends_a_simple_text_email(clock: FakeClock, sleeper: FakeSleeper) -> None:
    client = RecordingSesClient({"MessageId": "ses-1"})
    ses(client, clock, sleeper).send(completed())
    request = client.calls[0]
    assert request["FromEmailAddress"] == "nrf@example.gov.uk"
    assert request["Destination"] == {"ToAddresses": ["dev@example.gov.uk"]}
    simple = request["Content"]["Simple"]
    assert simple["Subject"]["Data"] == "Nutrient assessment NRF-000001 is complete"
    assert simple["Body"]["Text"]["Data"] == email_text(completed())[1]


def test_render_lists_every_personalisation_field() -> None:
    subject, body = email_text(completed())
    assert subject == "Nutrient assessment NRF-000001 is complete"
    assert body == (
        "Your nutrient impact assessment is complete.\n"
        "\n"
        "Reference: NRF-000001\n"
        "development_name: Mill Lane\n"
        "levyAmount: £1,234.00\n"
    )


# --- log only -------------------------------------------------------------------------


def test_log_notifier_logs_one_line_and_reports_sent(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        record = LogNotifier().send(completed())
    assert (record.sent, record.attempts) == (True, 1)
    [line] = caplog.records
    assert line.getMessage() == "notification_logged"
    assert line.__dict__["recipient"] == "d***@example.gov.uk"
    assert line.__dict__["personalisation"]["development_name"] == "Mill Lane"
    assert "dev@example.gov.uk" not in caplog.text


def test_mask_email_keeps_only_first_character_and_domain() -> None:
    assert mask_email("alice@example.com") == "a***@example.com"
    assert mask_email("nonsense") == "***"
