"""The `nrf` command line: assess files, generate bundles, run the worker.

Over 200 lines: one thin function per subcommand, registered side by side.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from nrf import __version__
from nrf.domain.errors import InvalidInput, NrfError
from nrf.domain.rules import RULE_SETS
from nrf.entrypoints.assess_arguments import add_parser as add_assess_parser
from nrf.entrypoints.bundle_publish_command import add_publish_command
from nrf.entrypoints.exit_codes import (
    BY_ERROR_CODE,
    EXIT_BAD_REFERENCE,
    EXIT_CANNOT_WRITE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_INVALID_INPUT,
    EXIT_OK,
    EXIT_USAGE,
)
from nrf.entrypoints.help_text import finish_help

__all__ = [
    "EXIT_BAD_REFERENCE",
    "EXIT_CANNOT_WRITE",
    "EXIT_ERROR",
    "EXIT_INVALID_INPUT",
    "EXIT_OK",
    "EXIT_USAGE",
    "build_parser",
    "main",
]

Command = Callable[[argparse.Namespace], int]


def _progress_printer(label: str) -> Callable[[int, int], None]:
    """Progress on stderr: a live counter on a terminal, a line per 10 % otherwise."""
    tty = sys.stderr.isatty()
    started = time.monotonic()
    last_decile = -1

    def show(done: int, total: int) -> None:
        nonlocal last_decile
        if total < 20 and not tty:
            return
        if tty:
            end = "\n" if done == total else ""
            print(f"\r{label} {done}/{total}", end=end, file=sys.stderr, flush=True)
            return
        decile = done * 10 // total
        if decile != last_decile:
            last_decile = decile
            elapsed = time.monotonic() - started
            print(f"{label} {done}/{total} ({elapsed:.1f} s)", file=sys.stderr, flush=True)

    return show


def cmd_bundle_generate(args: argparse.Namespace) -> int:
    from nrf.bundles.synthetic_bundle import generate_bundle, generate_norfolk_demo

    started = time.perf_counter()
    if args.norfolk_demo:
        generate_norfolk_demo(Path(args.path))
    else:
        generate_bundle(
            Path(args.path),
            args.polygons,
            seed=args.seed,
            progress=_progress_printer("writing coefficient polygons"),
        )
    print(f"wrote {args.path} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return EXIT_OK


def cmd_worker(args: argparse.Namespace) -> int:
    from nrf.entrypoints.worker.main import run_worker

    return run_worker(os.environ)


def cmd_dlq(args: argparse.Namespace) -> int:
    from nrf.adapters.environment.settings import load_settings
    from nrf.adapters.telemetry.logging_setup import configure_logging
    from nrf.entrypoints.roots.dead_letters import build_dead_letter_root

    settings = load_settings(os.environ)
    configure_logging(secrets=settings.secrets())
    container = build_dead_letter_root(settings)
    if args.rerun:
        outcomes = container.rerun_refused_quotes()(args.rerun)
        for reference, outcome in outcomes.items():
            print(f"{reference}: {outcome}")
        return EXIT_OK if set(outcomes.values()) == {"requeued"} else EXIT_ERROR
    handled = container.drain_dead_letters()()
    print(f"{len(handled)} dead-lettered jobs marked failed: {', '.join(handled) or '-'}")
    return EXIT_OK


def cmd_submit(args: argparse.Namespace) -> int:
    from nrf.adapters.environment.settings import load_settings
    from nrf.adapters.job_queue.job_submission import job_messages
    from nrf.adapters.site_boundaries.boundary_files import read_boundary_file
    from nrf.domain.validation import validate_features
    from nrf.entrypoints.roots.core import Core, build

    # The worker's limits (NRF_MAX_*): a file the queue's workers would refuse is refused here.
    container = build(Core, settings=load_settings(os.environ))
    limits = container.limits()
    developments = validate_features(read_boundary_file(Path(args.input), limits), limits)
    queue = container.job_queue()
    for job_id, body in job_messages(developments, args.job_prefix, args.email, args.rules):
        queue.send(body)
        print(job_id)
    print(f"submitted {len(developments)} jobs", file=sys.stderr)
    return EXIT_OK


def cmd_health(args: argparse.Namespace) -> int:
    import json
    import urllib.error
    import urllib.request

    healthy = True
    for path in ("/health", "/ready"):
        try:
            with urllib.request.urlopen(args.url.rstrip("/") + path, timeout=5) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        except OSError as exc:
            print(f"{path}: unreachable ({exc})")
            return EXIT_ERROR
        healthy = healthy and status == 200
        print(f"{path}: {status} {json.dumps(json.loads(body or b'{}'))}")
    return EXIT_OK if healthy else EXIT_ERROR


def cmd_serve(args: argparse.Namespace) -> int:
    from nrf.entrypoints.api.server import run_server

    return run_server(args.bind, os.environ)


def cmd_demo(args: argparse.Namespace) -> int:
    from nrf.entrypoints.demo import run_demo

    return run_demo(Path(args.results), args.limit, args.concurrency)


# Long: one subcommand per line group with its options and help.
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nrf", description="Nature Restoration Fund nutrient impact assessment."
    )
    parser.add_argument("--version", action="version", version=f"nrf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    add_assess_parser(sub)

    bundle = sub.add_parser("bundle", help="reference bundles")
    bundle_sub = bundle.add_subparsers(dest="bundle_command", required=True)
    generate = bundle_sub.add_parser("generate", help="write a synthetic bundle")
    generate.add_argument("path")
    generate.add_argument("--polygons", type=int, default=1_000_000)
    generate.add_argument("--seed", type=int, default=20261125)
    generate.add_argument(
        "--norfolk-demo",
        action="store_true",
        help="write the small Norfolk demo bundle that ships with nrf",
    )
    generate.set_defaults(func=cmd_bundle_generate)
    add_publish_command(bundle_sub)
    from nrf.entrypoints.bundle_commands import register as register_bundle_commands

    register_bundle_commands(bundle_sub)

    worker = sub.add_parser("worker", help="run the SQS worker (configured by environment)")
    worker.set_defaults(func=cmd_worker)
    dlq = sub.add_parser("dlq", help="fail and report every job in the dead-letter queue")
    dlq.add_argument(
        "--rerun",
        nargs="+",
        metavar="REFERENCE",
        help="instead, send these refused Defra quotes to the queue again (after a bundle "
        "update: the worker reassesses one only if its bundle is not the one that refused it)",
    )
    dlq.set_defaults(func=cmd_dlq)
    submit = sub.add_parser("submit", help="send each site of a file to the queue as a job")
    submit.add_argument("input")
    submit.add_argument("--email", help="requester address for notifications")
    submit.add_argument("--rules", choices=sorted(RULE_SETS))
    submit.add_argument("--job-prefix", default="cli", help="job ids are PREFIX-RLB")
    submit.set_defaults(func=cmd_submit)
    health = sub.add_parser("health", help="ask a running worker for /health and /ready")
    health.add_argument(
        "--url", default=f"http://127.0.0.1:{os.environ.get('AWS_HEALTH_PORT', '8085')}"
    )
    health.set_defaults(func=cmd_health)
    serve = sub.add_parser("serve", help="serve the quote API and report form (gunicorn)")
    serve.add_argument("--bind", default="127.0.0.1:8080", help="HOST:PORT (default %(default)s)")
    serve.set_defaults(func=cmd_serve)
    demo = sub.add_parser(
        "demo", help="run the sample sites through a local SQS server and the real worker"
    )
    demo.add_argument("--results", default="out/demo-results", help="local result store folder")
    demo.add_argument("--limit", type=int, help="submit only the first N sample sites")
    demo.add_argument("--concurrency", type=int, default=2, help="job processes (default 2)")
    demo.set_defaults(func=cmd_demo)
    from nrf.entrypoints.ops_commands import add_ops_commands

    add_ops_commands(sub)
    return finish_help(parser)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    func: Command = args.func
    try:
        return func(args)
    except InvalidInput as exc:
        count = len(exc.problems)
        plural = "" if count == 1 else "s"
        print(f"error: the input cannot be assessed ({count} problem{plural}):", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem.describe()}", file=sys.stderr)
        if {"ambiguous_layer", "zip_ambiguous"} & set(exc.codes):
            print("  (nrf assess --layer NAME reads the one of that name)", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except NrfError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return BY_ERROR_CODE.get(exc.code, EXIT_ERROR)
    except KeyboardInterrupt:
        print("interrupted; nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
