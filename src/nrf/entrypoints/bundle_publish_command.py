"""`nrf bundle publish BUNDLE s3://bucket/prefix/`: upload, then print the pin to deploy."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path


def add_publish_command(bundle_sub: argparse._SubParsersAction) -> None:
    """Register `nrf bundle publish` under `nrf bundle`."""
    publish = bundle_sub.add_parser(
        "publish", help="upload a bundle to S3 under an immutable versioned key; print its pin"
    )
    publish.add_argument("bundle", help="the bundle (.gpkg) to publish")
    publish.add_argument("destination", help="s3://bucket/prefix/ to publish below")
    publish.add_argument(
        "--allow-unchecked",
        action="store_true",
        help="publish a bundle that did not pass `nrf bundle build`'s quality gate "
        "(test and synthetic bundles only)",
    )
    publish.set_defaults(
        func=lambda args: run_publish(
            args.bundle, args.destination, allow_unchecked=args.allow_unchecked
        )
    )


def run_publish(
    bundle: str,
    destination: str,
    environ: Mapping[str, str] | None = None,
    *,
    allow_unchecked: bool = False,
) -> int:
    """The command: upload, then print the pin (stdout) a deployment sets."""
    import os

    from nrf.adapters.environment.settings import WorkerSettings
    from nrf.bundles.publish import gate_outcome, publish_bundle
    from nrf.bundles.qc.report import PASSED
    from nrf.entrypoints.exit_codes import EXIT_OK
    from nrf.entrypoints.roots.core import Core, build

    environ = os.environ if environ is None else environ
    settings = WorkerSettings(
        region=environ.get("AWS_REGION") or "eu-west-2",
        endpoint_url=environ.get("AWS_ENDPOINT_URL") or None,
    )
    client = build(Core, settings=settings).s3_client()

    def show(done: int, total: int) -> None:
        print(f"uploaded {done}/{total} bytes", file=sys.stderr, flush=True)

    published = publish_bundle(
        client, Path(bundle), destination, show, allow_unchecked=allow_unchecked
    )
    info = published.info
    print(f"published {info.name} {info.version} to {published.location}", file=sys.stderr)
    if gate_outcome(Path(bundle)) != PASSED:
        print(
            "note: this bundle did NOT pass the quality gate (published with --allow-unchecked)",
            file=sys.stderr,
        )
    if info.synthetic:
        print(
            "note: this bundle is SYNTHETIC: workers refuse it unless "
            "NRF_ALLOW_SYNTHETIC_DATA=true",
            file=sys.stderr,
        )
    for variable, value in published.pin().items():
        print(f"{variable}={value}")
    return EXIT_OK
