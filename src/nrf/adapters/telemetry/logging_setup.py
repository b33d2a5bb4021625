"""Structured JSON logs, one event per line, with secrets scrubbed, and EMF metrics.

Warnings are log records too: GDAL's (pyogrio raises them as Python warnings) quote text from
the user's file, such as a layer name; written raw to stderr, a name holding a line break and
JSON would read as a log line of its own. In a JSON string every line break is escaped.
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nrf.adapters.telemetry.iso_time import iso_utc

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """``{"ts", "time", "level", "logger", "event", ...extra}``; the message is the event name.

    ``ts`` is epoch seconds (what dashboards read), ``time`` the same instant in ISO 8601 UTC.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets = tuple(s for s in secrets if s and len(s) >= 6)

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "time": iso_utc(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
            "pid": record.process,
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        text = json.dumps(entry, default=str)
        for secret in self._secrets:
            text = text.replace(secret, "[secret]")
        return text


def configure_logging(secrets: Iterable[str] = (), level: int = logging.INFO) -> None:
    """Send every log record to stderr as one JSON line."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("botocore", "boto3", "urllib3", "s3transfer"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    warnings.showwarning = log_warning


def log_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` as one JSON record: ``gdal_warning`` when pyogrio raised it."""
    origin = Path(filename)
    event = "gdal_warning" if "pyogrio" in origin.parts else "python_warning"
    logging.getLogger("nrf.warnings").warning(
        event,
        extra={
            "category": category.__name__,
            "detail": str(message)[:2000],
            "origin": f"{origin.name}:{lineno}",
        },
    )


def emf_record(namespace: str, status: str, seconds: float, job_id: str | None) -> str:
    """A CloudWatch embedded-metric-format line for one finished job."""
    from nrf.adapters.telemetry.emf import emf_line

    metrics = {
        "JobDuration": round(seconds * 1000, 1),
        "JobSucceeded": int(status in ("succeeded", "already_finished")),
        "JobFailed": int(status == "failed"),
        "JobRetried": int(status == "retry"),
    }
    units = {"JobDuration": "Milliseconds"}
    return emf_line(namespace, metrics, {"job_id": job_id, "status": status}, units)


def publish_metrics(namespace: str, status: str, seconds: float, job_id: str | None) -> None:
    # EMF records go to stdout on their own: the CloudWatch agent parses them there.
    print(emf_record(namespace, status, seconds, job_id), flush=True)
