"""`nrf status` and `nrf housekeep`: the operator's commands, wired from the worker's settings.

Exit codes, so either can drive a cron check or an alarm: 0 all well, 1 something needs a
person (each reason on its own line), 2 bad usage or configuration (argparse also exits 2).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from nrf.domain.errors import NrfError
from nrf.domain.jobs import QueueFatalError

EXIT_OK, EXIT_ATTENTION, EXIT_CONFIG = 0, 1, 2

log = logging.getLogger("nrf.housekeep")


def _parts(environ: dict[str, str]) -> tuple[Any, Any, Any]:
    """Settings, container and queue inspector; raises ConfigError / QueueFatalError."""
    from nrf.adapters.job_queue.sqs_queue_inspector import SqsQueueInspector
    from nrf.entrypoints.container import build_container
    from nrf.entrypoints.settings import load_settings

    settings = load_settings(environ)
    c = build_container(settings=settings)
    queue = c.job_queue()
    try:
        dlq_url: str | None = c.dead_letter_queue().queue_url
    except QueueFatalError:
        dlq_url = None  # no DLQ configured: its depth reads 0, and the queue still works
    inspector = SqsQueueInspector(
        c.sqs_client(), queue.queue_url, dlq_url, c.clock(), cloudwatch=c.cloudwatch_client()
    )
    return settings, c, inspector


def cmd_status(args: argparse.Namespace) -> int:
    from nrf.domain.fleet_status import concerns
    from nrf.entrypoints.settings import ConfigError
    from nrf.entrypoints.status_report import render_json, render_text
    from nrf.service_layer.fleet_status import ReadFleetStatus

    try:
        settings, c, inspector = _parts(dict(os.environ))
    except (ConfigError, QueueFatalError) as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_CONFIG
    read = ReadFleetStatus(
        inspector,
        c.ops_records(),
        c.store_inventory(),
        c.result_store(),
        c.clock(),
        stuck_after_seconds=settings.stuck_after_seconds,
    )
    try:
        status = read()
    except NrfError as exc:
        print(f"{exc.code}: {exc.message}")
        return EXIT_ATTENTION
    found = concerns(status)
    print(render_json(status, found) if args.json else render_text(status, found))
    return EXIT_ATTENTION if found else EXIT_OK


def cmd_housekeep(args: argparse.Namespace) -> int:
    from nrf.domain.fleet import fleet_view
    from nrf.entrypoints.logging_setup import configure_logging
    from nrf.entrypoints.ops_metrics import publish_counts
    from nrf.entrypoints.settings import ConfigError
    from nrf.service_layer.fleet_status import read_beats
    from nrf.service_layer.housekeeping import Housekeep
    from nrf.service_layer.stall_alerts import WatchForStalls

    try:
        settings, c, inspector = _parts(dict(os.environ))
    except (ConfigError, QueueFatalError) as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_CONFIG
    configure_logging(secrets=settings.secrets())
    records, clock = c.ops_records(), c.clock()
    try:
        tidy = Housekeep(c.store_inventory(), records, clock, settings.result_retention_days)
        report = tidy(dry_run=args.dry_run)
        view = fleet_view(read_beats(records), clock.now())
        watch = WatchForStalls(
            inspector,
            records,
            c.notifier(),
            clock,
            settings.support_email,
            settings.stall_alert_seconds,
        )
        stall = watch(len(view.live), dry_run=args.dry_run)
    except NrfError as exc:
        log.error("housekeeping_failed", extra={"code": exc.code, "error": exc.message})
        print(f"{exc.code}: {exc.message}")
        return EXIT_ATTENTION
    fleet = {
        "LiveWorkers": len(view.live),
        "StaleWorkers": len(view.stale),
        "QueueStalled": int(stall.stalled_for is not None),
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
        print(f"stall: {stall.action}, {stall.waiting} waiting")
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
