"""JSON log lines carry job fields, tracebacks and never a secret; EMF records parse."""

import json
import logging

from nrf.adapters.telemetry.logging_setup import JsonFormatter, emf_record

SECRET = "3d844edf-8d35-48ac-975b-e847b4f122b0"


def _format(record: logging.LogRecord) -> dict:
    return json.loads(JsonFormatter(secrets=[SECRET]).format(record))


def test_one_json_object_with_the_event_and_its_fields() -> None:
    record = logging.makeLogRecord(
        {
            "name": "nrf.job",
            "levelno": logging.INFO,
            "levelname": "INFO",
            "msg": "job_stored",
            "job_id": "j-1",
            "trace_id": "t-1",
        }
    )
    entry = _format(record)
    assert (entry["event"], entry["job_id"], entry["trace_id"], entry["level"]) == (
        "job_stored",
        "j-1",
        "t-1",
        "info",
    )


def test_secrets_are_scrubbed_wherever_they_appear() -> None:
    try:
        raise RuntimeError(f"token {SECRET} refused")
    except RuntimeError:
        import sys

        record = logging.makeLogRecord(
            {"msg": "boom", "levelname": "ERROR", "exc_info": sys.exc_info(), "detail": SECRET}
        )
    line = JsonFormatter(secrets=[SECRET]).format(record)
    assert SECRET not in line
    assert "[secret]" in line and "RuntimeError" in json.loads(line)["traceback"]


def test_emf_record_declares_its_metrics() -> None:
    doc = json.loads(emf_record("nrf", "succeeded", 1.25, "j-1"))
    (directive,) = doc["_aws"]["CloudWatchMetrics"]
    names = {m["Name"] for m in directive["Metrics"]}
    assert names == {"JobDuration", "JobSucceeded", "JobFailed", "JobRetried"}
    assert (doc["JobDuration"], doc["JobSucceeded"], doc["JobFailed"]) == (1250.0, 1, 0)
    assert all(name in doc for name in names)


def test_the_backend_key_is_scrubbed_as_well_as_notifys() -> None:
    from nrf.adapters.environment.settings import load_settings

    backend_key = "backend-key-7f3a9c2e51"
    settings = load_settings(
        {
            "AWS_SQS_QUEUE_NAME": "q",
            "GOVUK_NOTIFY_API_KEY": SECRET,
            "BACKEND_BASE_URL": "https://backend.example",
            "BACKEND_API_KEY": backend_key,
        }
    )
    assert set(settings.secrets()) == {SECRET, backend_key}
    record = logging.makeLogRecord(
        {
            "name": "nrf.backend",
            "levelno": logging.WARNING,
            "levelname": "WARNING",
            "msg": "backend_failed",
            "error": f"x-api-key: {backend_key}; notify {SECRET}",
        }
    )
    line = JsonFormatter(secrets=settings.secrets()).format(record)
    assert backend_key not in line and SECRET not in line
