"""`nrf status` and `nrf housekeep`: the operator's commands, wired by their root (roots/ops.py).

Exit codes (from the one table, entrypoints/exit_codes.py), so either can drive a cron check
or an alarm: 0 all well, 1 something needs a person (each reason on its own line), 2 bad usage
or configuration: bad settings, a queue that cannot be reached, or a local result store that
does not exist (an empty folder read by mistake would say "all well").
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from nrf.adapters.environment.settings import WorkerSettings
from nrf.domain.errors import NrfError
from nrf.domain.jobs import QueueFatalError
from nrf.entrypoints.exit_codes import EXIT_ERROR, EXIT_OK, EXIT_USAGE

EXIT_ATTENTION, EXIT_CONFIG = EXIT_ERROR, EXIT_USAGE  # what 1 and 2 mean to an operator
STORE_NOT_FOUND = "result_store_not_found"

log = logging.getLogger("nrf.housekeep")


class OpsConfigError(NrfError):
    """What an ops command would read is not there; the message names the variables."""


def where_the_queue_is(settings: WorkerSettings) -> str:
    """The queue, its region and the variables that chose them, for an error a person fixes."""
    if settings.queue_url:
        queue = f"queue {settings.queue_url} (AWS_SQS_QUEUE_URL)"
    else:
        queue = f"queue {settings.queue_name!r} (AWS_SQS_QUEUE_NAME)"
    endpoint = (
        f", endpoint {settings.endpoint_url} (AWS_ENDPOINT_URL)" if settings.endpoint_url else ""
    )
    return f"{queue} in region {settings.region} (AWS_REGION){endpoint}"


def result_store_label(settings: WorkerSettings) -> str:
    if settings.result_store == "s3":
        return f"s3://{settings.results_bucket}/{settings.results_prefix}"
    return f"local {Path(settings.results_dir).resolve()}"


def _check_store(settings: WorkerSettings) -> None:
    if settings.result_store == "local" and not Path(settings.results_dir).is_dir():
        raise OpsConfigError(
            STORE_NOT_FOUND,
            f"the local result store {Path(settings.results_dir).resolve()} does not exist: set "
            "NRF_RESULTS_DIR to the workers' results folder, or NRF_RESULT_STORE=s3 with "
            "NRF_RESULTS_BUCKET (and NRF_RESULTS_PREFIX) as the workers have them",
        )


def _container(environ: dict[str, str]) -> tuple[WorkerSettings, Any]:
    """Settings and container; raises ConfigError, OpsConfigError or QueueFatalError."""
    from nrf.adapters.environment.settings import load_settings
    from nrf.entrypoints.roots.ops import build_ops_root

    settings = load_settings(environ)
    _check_store(settings)
    return settings, build_ops_root(settings)


def _refused(exc: NrfError, settings: WorkerSettings | None) -> int:
    """One ``error: code: message`` line; a queue that cannot be used names where it looked."""
    message = exc.message
    if isinstance(exc, QueueFatalError) and settings is not None:
        message = f"{message}: {where_the_queue_is(settings)}"
    print(f"error: {exc.code}: {message}", file=sys.stderr)
    return EXIT_CONFIG


def cmd_status(args: argparse.Namespace) -> int:
    from nrf.adapters.environment.settings import ConfigError
    from nrf.adapters.telemetry.emf import SERVICE
    from nrf.adapters.terminal.status_report import StatusSources, render_json, render_text
    from nrf.domain.fleet_status import concerns

    settings = None
    try:
        settings, c = _container(dict(os.environ))
        read = c.read_fleet_status()
        sources = StatusSources(
            queue=settings.queue_url or settings.queue_name,
            dead_letter_queue=c.config.dlq_name(),
            region=settings.region,
            endpoint=settings.endpoint_url,
            result_store=result_store_label(settings),
        )
        status = read()
    except (ConfigError, OpsConfigError, QueueFatalError) as exc:
        return _refused(exc, settings)
    except NrfError as exc:
        print(f"{exc.code}: {exc.message}")
        return EXIT_ATTENTION
    found = concerns(status, worker_service=SERVICE)
    render = render_json if args.json else render_text
    print(render(status, found, sources))
    return EXIT_ATTENTION if found else EXIT_OK


def cmd_housekeep(args: argparse.Namespace) -> int:
    from nrf.adapters.environment.settings import ConfigError
    from nrf.adapters.telemetry.logging_setup import configure_logging
    from nrf.domain.fleet import fleet_view
    from nrf.entrypoints.ops_metrics import publish_counts, queue_stalled, stall_line
    from nrf.service_layer.fleet_status import read_beats

    settings = None
    try:
        settings, c = _container(dict(os.environ))
        tidy, watch = c.housekeep(), c.watch_for_stalls()
    except (ConfigError, OpsConfigError, QueueFatalError) as exc:
        return _refused(exc, settings)
    configure_logging(secrets=settings.secrets())
    records, clock = c.ops_records(), c.clock()
    try:
        report = tidy(dry_run=args.dry_run)
        view = fleet_view(read_beats(records), clock.now())
        stall = watch(len(view.live), dry_run=args.dry_run)
    except NrfError as exc:
        log.error("housekeeping_failed", extra={"code": exc.code, "error": exc.message})
        print(f"{exc.code}: {exc.message}")
        return EXIT_ATTENTION
    fleet = {
        "LiveWorkers": len(view.live),
        "StaleWorkers": len(view.stale),
        "QueueStalled": queue_stalled(stall),
    }
    log.info(
        "housekeeping_done",
        extra={
            **report.counts,
            **fleet,
            "dry_run": args.dry_run,
            "stall": str(stall.action),
            "requesters_told": stall.requesters_told,
        },
    )
    if args.dry_run:
        plan = report.plan
        kinds = [
            ("job", plan.jobs),
            ("claim", plan.claims),
            ("worker record", plan.worker_records),
            ("temporary file", plan.temp_files),
            ("notice", plan.notices),
        ]
        for kind, names in kinds:
            for name in names:
                print(f"would delete {kind} {name}")
        print(stall_line(stall, dry_run=True))
    else:
        publish_counts(settings.metrics_namespace, {**report.counts, **fleet})
    return EXIT_OK


def add_ops_commands(sub: Any) -> None:
    """Register `status` and `housekeep` on the `nrf` parser's subcommands."""
    status = sub.add_parser("status", help="queue, DLQ, workers, recent jobs and stuck jobs")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.set_defaults(func=cmd_status)
    housekeep = sub.add_parser(
        "housekeep", help="retention, stale records, stall alerts (run on a schedule)"
    )
    housekeep.add_argument("--dry-run", action="store_true", help="only say what would go")
    housekeep.set_defaults(func=cmd_housekeep)
