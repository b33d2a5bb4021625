"""Worker settings: documented defaults, every bad variable named at once, no secret shown."""

import pytest

from nrf.adapters.environment.settings import ConfigError, WorkerSettings, load_settings


def test_defaults_are_the_documented_ones() -> None:
    s = load_settings({})
    assert s == WorkerSettings()
    assert (s.queue_name, s.wait_time_seconds, s.max_messages, s.concurrency) == (
        "nrf_impact_assessment_queue",
        20,
        1,
        1,
    )
    assert (
        s.visibility_timeout,
        s.extend_visibility_every_seconds,
        s.visibility_extension_seconds,
    ) == (600, 240, 300)
    assert (s.heartbeat_timeout, s.task_timeout_buffer, s.shutdown_grace_seconds) == (
        180.0,
        1.5,
        30.0,
    )
    assert (s.health_port, s.notifier, s.result_store) == (8085, "log", "local")
    # ECS runs the container health check inside the container: loopback only (issue 21).
    assert s.health_host == "127.0.0.1"
    # docs/worker.md's table: NRF_RETRY_BASE_SECONDS 30, JOB_TIMEOUT_SECONDS 900.
    assert (s.retry_base_seconds, s.job_timeout_seconds) == (30, 900.0)


def test_every_bad_variable_is_named_in_one_error() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(
            {
                "AWS_SQS_MAX_MESSAGES": "99",
                "WORKER_CONCURRENCY": "0",
                "AWS_HEALTH_PORT": "http",
                "NRF_NOTIFIER": "pigeon",
            }
        )
    text = caught.value.message
    for variable in (
        "AWS_SQS_MAX_MESSAGES",
        "WORKER_CONCURRENCY",
        "AWS_HEALTH_PORT",
        "NRF_NOTIFIER",
    ):
        assert variable in text
    assert len(caught.value.problems) == 4


def test_notify_needs_its_key_and_templates() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"NRF_NOTIFIER": "govuk_notify"})
    assert "GOVUK_NOTIFY_API_KEY" in caught.value.message
    assert "GOVUK_NOTIFY_TEMPLATE_JOB_COMPLETED" in caught.value.message


def test_the_api_key_never_appears_in_repr_or_errors() -> None:
    key = "nrf_test-26785a09-ab16-4eb0-8407-a37497a57506-3d844edf-8d35-48ac-975b-e847b4f122b0"
    s = load_settings({"GOVUK_NOTIFY_API_KEY": key, "NRF_NOTIFIER": "log"})
    assert s.notify_api_key == key
    assert key not in repr(s) and key not in str(s)
    with pytest.raises(ConfigError) as caught:
        load_settings({"GOVUK_NOTIFY_API_KEY": key, "AWS_SQS_MAX_MESSAGES": "x"})
    assert key not in caught.value.message


def test_visibility_extension_must_come_before_the_timeout() -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"SQS_VISIBILITY_TIMEOUT": "60", "VISIBILITY_HEARTBEAT_SECONDS": "60"})
    assert "VISIBILITY_HEARTBEAT_SECONDS" in caught.value.message


@pytest.mark.parametrize(
    ("url", "allow", "accepted"),
    [
        ("https://backend.example", False, True),
        ("http://backend.example", False, False),  # the key would travel in clear text
        ("http://127.0.0.1:9", False, False),  # loopback too, unless a test asks for it
        ("http://127.0.0.1:9", True, True),
        ("http://localhost:9", True, True),
        ("http://backend.example", True, False),  # the test setting allows loopback only
        ("http://127.0.0.1.backend.example", True, False),
        ("ftp://backend.example", False, False),
    ],
)
def test_the_backend_url_must_be_https(url: str, allow: bool, accepted: bool) -> None:
    env = {"BACKEND_BASE_URL": url, "BACKEND_API_KEY": "k"}
    if allow:
        env["BACKEND_ALLOW_LOOPBACK_HTTP"] = "true"
    if accepted:
        assert load_settings(env).backend_base_url == url
        return
    with pytest.raises(ConfigError) as caught:
        load_settings(env)
    assert "BACKEND_BASE_URL must be an https:// URL" in caught.value.message


def test_a_test_quote_date_is_a_day() -> None:
    from datetime import date

    assert load_settings({"NRF_TEST_QUOTE_DATE": "2027-06-01"}).test_quote_date == date(2027, 6, 1)
    assert load_settings({}).test_quote_date is None  # a deployment prices on today
    with pytest.raises(ConfigError) as caught:
        load_settings({"NRF_TEST_QUOTE_DATE": "01/06/2027"})
    assert "NRF_TEST_QUOTE_DATE" in caught.value.message
