"""Worker configuration from environment variables, every bad one reported at once.

Over 200 lines: one table of every variable with its parser, so the whole configuration is
one read and every bad variable is found in one pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from attrs import frozen

from nrf.adapters.backend.http_backend_results import url_problem
from nrf.adapters.boundary_data.bundle_location import location_problems, parse_sha256
from nrf.adapters.environment.setting_values import (
    choice,
    domains,
    flag,
    float_between,
    int_between,
    iso_date,
    worker_id,
)
from nrf.domain.errors import NrfError
from nrf.domain.rules import RULE_SETS
from nrf.domain.validation import DEFAULT_LIMITS


class ConfigError(NrfError):
    """Configuration that cannot work; the message names every bad variable."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("bad_configuration", "; ".join(problems))


@frozen(kw_only=True)
class WorkerSettings:
    """Everything the worker reads from its environment, with the documented defaults."""

    queue_name: str = "nrf_impact_assessment_queue"
    queue_url: str | None = None
    dlq_name: str | None = None
    region: str = "eu-west-2"
    endpoint_url: str | None = None
    wait_time_seconds: int = 20
    max_messages: int = 1
    concurrency: int = 1
    visibility_timeout: int = 600
    extend_visibility_every_seconds: int = 240
    visibility_extension_seconds: int = 300
    heartbeat_timeout: float = 180.0
    task_timeout_buffer: float = 1.5
    shutdown_grace_seconds: float = 30.0
    job_timeout_seconds: float = 900.0
    retry_base_seconds: int = 30
    health_port: int = 8085
    # ECS runs the container health check inside the container: loopback is enough, and keeps
    # the health server out of reach of anything else in the VPC.
    health_host: str = "127.0.0.1"
    reference_data: str | None = None
    reference_data_sha256: str | None = None
    reference_data_cache: str | None = None  # where a bundle from S3 is downloaded
    # Set by the start-up step only (no variable): the digest it verified or computed, with
    # the file's size and mtime (bundle_digest.stamped_digest), so no later process hashes again.
    reference_data_verified: str | None = None
    allow_synthetic_data: bool = False
    default_rules: str = "iat-2026-04"
    notifier: str = "log"
    result_store: str = "local"
    results_dir: str = "results"
    results_bucket: str | None = None
    results_prefix: str = "results"
    input_bucket: str | None = None
    input_prefix: str = ""
    notify_api_key: str | None = None
    notify_base_url: str | None = None
    template_started: str | None = None
    template_completed: str | None = None
    template_failed: str | None = None
    template_delayed: str | None = None
    results_base_url: str = ""
    # The "completed" email's presigned links (S3 store): how long they work, at most SigV4's
    # 7 days; the default leaves an hour for the email to be sent and the clocks to differ.
    result_link_seconds: int = 7 * 24 * 3600 - 3600
    # The key the links are signed with: long-lived, as a role's session would end them early.
    result_link_access_key_id: str | None = None
    result_link_secret_access_key: str | None = None
    support_email: str | None = None
    allowed_domains: tuple[str, ...] = ()
    ses_from_address: str | None = None
    metrics_namespace: str = "nrf"
    # The input ceilings: InputLimits' defaults, under the worker's names (assess_limits.py).
    max_file_bytes: int = DEFAULT_LIMITS.max_file_bytes
    max_sites_per_job: int = DEFAULT_LIMITS.max_features
    max_vertices_per_site: int = DEFAULT_LIMITS.max_vertices_per_feature
    max_total_vertices: int = DEFAULT_LIMITS.max_total_vertices
    max_site_area_ha: float = float(DEFAULT_LIMITS.max_site_area_ha)
    max_decompressed_bytes: int = DEFAULT_LIMITS.max_decompressed_bytes
    max_read_seconds: float = DEFAULT_LIMITS.max_read_seconds
    max_read_memory_bytes: int = DEFAULT_LIMITS.max_read_memory_bytes
    # Operating the fleet (docs/deploy.md): heartbeats, status, housekeeping, the backend.
    fleet_heartbeat_seconds: float = 30.0
    worker_id: str | None = None
    result_retention_days: int = 90
    stall_alert_seconds: int = 900
    stuck_after_seconds: int = 3600
    backend_base_url: str | None = None
    backend_api_key: str | None = None
    backend_callback_timeout: float = 30.0
    backend_callback_max_retries: int = 3
    # Plain http:// to a loopback backend: tests' local fakes only, never a deployment.
    backend_allow_loopback_http: bool = False
    # Price every quote on this day instead of today (UTC): tests only, never a deployment.
    test_quote_date: date | None = None

    def emails_off(self) -> list[str]:
        """The kinds of email GOV.UK Notify is given no template for, so never sent."""
        if self.notifier != "govuk_notify":
            return []
        templates = {
            "started": self.template_started,
            "completed": self.template_completed,
            "failed": self.template_failed,
            "delayed": self.template_delayed,
        }
        return [kind for kind, template in templates.items() if not template]

    def secrets(self) -> list[str]:
        """Every configured key the log scrubber must hide: Notify's and the backend's."""
        keys = (self.notify_api_key, self.backend_api_key, self.result_link_secret_access_key)
        return [key for key in keys if key]

    def __repr__(self) -> str:
        # Keep the Notify key out of any log line or traceback that prints settings.
        shown = "set" if self.notify_api_key else "unset"
        backend = "set" if self.backend_api_key else "unset"
        return (
            f"WorkerSettings(queue_name={self.queue_name!r}, notify_api_key={shown}, "
            f"backend_api_key={backend}, ...)"
        )


_VARIABLES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "AWS_SQS_QUEUE_NAME": ("queue_name", str),
    "AWS_SQS_QUEUE_URL": ("queue_url", str),
    "AWS_SQS_DLQ_NAME": ("dlq_name", str),
    "AWS_REGION": ("region", str),
    "AWS_ENDPOINT_URL": ("endpoint_url", str),
    "AWS_SQS_WAIT_TIME_SECONDS": ("wait_time_seconds", int_between(0, 20)),
    "AWS_SQS_MAX_MESSAGES": ("max_messages", int_between(1, 10)),
    "WORKER_CONCURRENCY": ("concurrency", int_between(1, 64)),
    "SQS_VISIBILITY_TIMEOUT": ("visibility_timeout", int_between(1, 43_200)),
    "VISIBILITY_HEARTBEAT_SECONDS": ("extend_visibility_every_seconds", int_between(1, 43_200)),
    "VISIBILITY_EXTENSION_SECONDS": ("visibility_extension_seconds", int_between(1, 43_200)),
    "HEARTBEAT_TIMEOUT": ("heartbeat_timeout", float_between(0.1, 86_400)),
    "TASK_TIMEOUT_BUFFER": ("task_timeout_buffer", float_between(1.0, 100)),
    "SHUTDOWN_GRACE_SECONDS": ("shutdown_grace_seconds", float_between(0, 3_600)),
    "JOB_TIMEOUT_SECONDS": ("job_timeout_seconds", float_between(1, 43_200)),
    "NRF_RETRY_BASE_SECONDS": ("retry_base_seconds", int_between(1, 900)),
    "AWS_HEALTH_PORT": ("health_port", int_between(1, 65_535)),
    "NRF_HEALTH_HOST": ("health_host", str),
    "NRF_REFERENCE_DATA": ("reference_data", str),
    "NRF_REFERENCE_DATA_SHA256": ("reference_data_sha256", parse_sha256),
    "NRF_REFERENCE_DATA_CACHE": ("reference_data_cache", str),
    "NRF_ALLOW_SYNTHETIC_DATA": ("allow_synthetic_data", flag),
    "NRF_DEFAULT_RULES": ("default_rules", choice(*sorted(RULE_SETS))),
    "NRF_NOTIFIER": ("notifier", choice("log", "govuk_notify", "ses")),
    "NRF_RESULT_STORE": ("result_store", choice("local", "s3")),
    "NRF_RESULTS_DIR": ("results_dir", str),
    "NRF_RESULTS_BUCKET": ("results_bucket", str),
    "NRF_RESULTS_PREFIX": ("results_prefix", str),
    "NRF_INPUT_BUCKET": ("input_bucket", str),
    "NRF_INPUT_PREFIX": ("input_prefix", str),
    "GOVUK_NOTIFY_API_KEY": ("notify_api_key", str),
    "GOVUK_NOTIFY_BASE_URL": ("notify_base_url", str),
    "GOVUK_NOTIFY_TEMPLATE_JOB_STARTED": ("template_started", str),
    "GOVUK_NOTIFY_TEMPLATE_JOB_COMPLETED": ("template_completed", str),
    "GOVUK_NOTIFY_TEMPLATE_JOB_FAILED": ("template_failed", str),
    "GOVUK_NOTIFY_TEMPLATE_JOB_DELAYED": ("template_delayed", str),
    "GOVUK_NOTIFY_RESULTS_BASE_URL": ("results_base_url", str),
    "GOVUK_NOTIFY_SUPPORT_EMAIL": ("support_email", str),
    "NRF_RESULT_LINK_SECONDS": ("result_link_seconds", int_between(60, 7 * 24 * 3600)),
    "NRF_RESULT_LINK_ACCESS_KEY_ID": ("result_link_access_key_id", str),
    "NRF_RESULT_LINK_SECRET_ACCESS_KEY": ("result_link_secret_access_key", str),
    "GOVUK_NOTIFY_ALLOWED_DOMAINS": ("allowed_domains", domains),
    "SES_FROM_ADDRESS": ("ses_from_address", str),
    "NRF_METRICS_NAMESPACE": ("metrics_namespace", str),
    "NRF_MAX_FILE_BYTES": ("max_file_bytes", int_between(1, 2**40)),
    "NRF_MAX_SITES_PER_JOB": ("max_sites_per_job", int_between(1, 1_000_000)),
    "NRF_MAX_VERTICES_PER_SITE": ("max_vertices_per_site", int_between(4, 100_000_000)),
    "NRF_MAX_TOTAL_VERTICES": ("max_total_vertices", int_between(4, 1_000_000_000)),
    "NRF_MAX_SITE_AREA_HA": ("max_site_area_ha", float_between(0.0001, 1e9)),
    "NRF_MAX_DECOMPRESSED_BYTES": ("max_decompressed_bytes", int_between(1, 2**42)),
    "NRF_MAX_READ_SECONDS": ("max_read_seconds", float_between(0.001, 3_600)),
    "NRF_MAX_READ_MEMORY_BYTES": ("max_read_memory_bytes", int_between(1_048_576, 2**42)),
    "NRF_FLEET_HEARTBEAT_SECONDS": ("fleet_heartbeat_seconds", float_between(0.05, 3_600)),
    "NRF_WORKER_ID": ("worker_id", worker_id),
    "NRF_RESULT_RETENTION_DAYS": ("result_retention_days", int_between(1, 36_500)),
    "NRF_STALL_ALERT_SECONDS": ("stall_alert_seconds", int_between(1, 86_400)),
    "NRF_STUCK_AFTER_SECONDS": ("stuck_after_seconds", int_between(1, 1_209_600)),
    "BACKEND_BASE_URL": ("backend_base_url", str),
    "BACKEND_API_KEY": ("backend_api_key", str),
    "BACKEND_CALLBACK_TIMEOUT": ("backend_callback_timeout", float_between(0.1, 600)),
    "BACKEND_CALLBACK_MAX_RETRIES": ("backend_callback_max_retries", int_between(0, 10)),
    "BACKEND_ALLOW_LOOPBACK_HTTP": ("backend_allow_loopback_http", flag),
    "NRF_TEST_QUOTE_DATE": ("test_quote_date", iso_date),
}


def load_settings(environ: Mapping[str, str]) -> WorkerSettings:
    """Read and check every variable; raise ConfigError naming all the bad ones."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for variable, (name, parse) in _VARIABLES.items():
        raw = environ.get(variable)
        if raw is None or raw == "":
            continue
        try:
            values[name] = parse(raw.strip())
        except ValueError as exc:
            shown = "(hidden)" if "KEY" in variable else repr(raw)
            problems.append(f"{variable}={shown}: {exc}")
    settings = WorkerSettings(**values)
    problems += _cross_checks(settings)
    if problems:
        raise ConfigError(problems)
    return settings


def variables_of(fields: Sequence[str]) -> list[str]:
    """The environment variables that set these settings fields, in the table's order."""
    return [variable for variable, (name, _) in _VARIABLES.items() if name in fields]


def read_variables(environ: Mapping[str, str], variables: Sequence[str]) -> dict[str, Any]:
    """Only the named variables, parsed as the worker would (`nrf assess` reads its limits).

    Returns {settings field: value} for those set; raises ConfigError naming the bad ones.
    """
    values = load_settings({v: environ[v] for v in variables if v in environ})
    return {
        _VARIABLES[v][0]: getattr(values, _VARIABLES[v][0])
        for v in variables
        if environ.get(v, "").strip()
    }


def _cross_checks(s: WorkerSettings) -> list[str]:
    problems = location_problems(s.reference_data, s.reference_data_sha256)
    if s.notifier == "govuk_notify":
        for variable, value in (
            ("GOVUK_NOTIFY_API_KEY", s.notify_api_key),
            ("GOVUK_NOTIFY_TEMPLATE_JOB_COMPLETED", s.template_completed),
            ("GOVUK_NOTIFY_TEMPLATE_JOB_FAILED", s.template_failed),
        ):
            if not value:
                problems.append(f"{variable} is required when NRF_NOTIFIER=govuk_notify")
    if s.notifier == "ses" and not s.ses_from_address:
        problems.append("SES_FROM_ADDRESS is required when NRF_NOTIFIER=ses")
    if s.result_store == "s3" and not s.results_bucket:
        problems.append("NRF_RESULTS_BUCKET is required when NRF_RESULT_STORE=s3")
    if bool(s.result_link_access_key_id) != bool(s.result_link_secret_access_key):
        problems.append(
            "NRF_RESULT_LINK_ACCESS_KEY_ID and NRF_RESULT_LINK_SECRET_ACCESS_KEY go together"
        )
    if s.backend_base_url:
        problem = url_problem(s.backend_base_url, allow_loopback_http=s.backend_allow_loopback_http)
        if problem is not None:
            problems.append(problem)
    if s.backend_base_url and not s.backend_api_key:
        problems.append("BACKEND_API_KEY is required when BACKEND_BASE_URL is set")
    if s.extend_visibility_every_seconds >= s.visibility_timeout:
        problems.append(
            "VISIBILITY_HEARTBEAT_SECONDS must be shorter than SQS_VISIBILITY_TIMEOUT, or a "
            "long job's message would reappear before it is extended"
        )
    return problems
