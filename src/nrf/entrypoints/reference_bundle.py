"""Start-up of the worker and the API: get the pinned bundle, verify it, refuse synthetic data.

The worker runs it in its supervisor before the worker process starts, with the health server
already up: a 1.6 GB download takes minutes, and ECS must see a live task (``/health`` 200,
``starting``) that is not ready (``/ready`` 503) until the verified bundle is open. `nrf serve`
runs the same steps before gunicorn starts, so no API process ever opens an unverified file.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
from attrs import frozen

from nrf.adapters.boundary_data.bundle_digest import stamped_digest
from nrf.adapters.boundary_data.bundle_fetch import CANCELLED, fetch_s3, verify_local
from nrf.adapters.boundary_data.bundle_identity import bundle_identity
from nrf.adapters.boundary_data.bundle_location import S3Location, parse_location
from nrf.adapters.environment.settings import WorkerSettings
from nrf.domain.errors import NrfError
from nrf.domain.health import WorkerStatus
from nrf.domain.model import BundleInfo
from nrf.domain.ports import HeartbeatStore
from nrf.entrypoints.exit_codes import EXIT_FATAL, EXIT_OK, EXIT_SYNTHETIC_REFUSED

log = logging.getLogger("nrf.bundle")

SYNTHETIC_REFUSED = "synthetic_data_not_allowed"
# The services' exit codes (entrypoints/exit_codes.py): 3 fatal (a digest mismatch, a broken
# or missing bundle, a failed download), 4 synthetic data refused.
PROGRESS_EVERY_SECONDS = 15.0


class SyntheticDataRefused(NrfError):
    """A worker would quote real levies from made-up data."""


@frozen
class ReadyBundle:
    """The verified local bundle the worker may open, and who it is."""

    path: Path
    info: BundleInfo


def bundled_synthetic() -> Path:
    """The synthetic bundle in the package (container.bundled_reference_data, imported light)."""
    return Path(str(resources.files("nrf") / "data" / "synthetic-norfolk.gpkg"))


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "nrf-reference-data"


class DownloadProgress:
    """Beats the heartbeat on every chunk (a stalled download goes unhealthy) and logs a line
    every 10 % or ``PROGRESS_EVERY_SECONDS``, with the rate and the time left."""

    def __init__(
        self,
        heartbeat: HeartbeatStore | None,
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._heartbeat, self._monotonic, self._wall = heartbeat, monotonic, wall
        self._started = monotonic()
        self._logged_at, self._logged_tenth = self._started, 0

    def __call__(self, done: int, total: int | None) -> None:
        if self._heartbeat is not None:
            self._heartbeat.beat(self._wall())
        now = self._monotonic()
        tenth = done * 10 // total if total else 0
        if tenth == self._logged_tenth and now - self._logged_at < PROGRESS_EVERY_SECONDS:
            return
        self._logged_at, self._logged_tenth = now, tenth
        elapsed = max(now - self._started, 1e-9)
        rate = done / elapsed
        fields: dict[str, Any] = {
            "bytes_done": done,
            "bytes_total": total,
            "mb_per_second": round(rate / 1e6, 1),
        }
        if total:
            fields["percent"] = round(100 * done / total, 1)
            fields["eta_seconds"] = round((total - done) / rate) if rate else None
        log.info("reference_data_download_progress", extra=fields)


def refuse_unless_allowed(settings: WorkerSettings, path: Path, info: BundleInfo) -> None:
    """Raise SyntheticDataRefused for synthetic data without ``NRF_ALLOW_SYNTHETIC_DATA``."""
    if info.synthetic and not settings.allow_synthetic_data:
        raise SyntheticDataRefused(
            SYNTHETIC_REFUSED,
            f"{path.name} ({info.name} {info.version}) is SYNTHETIC demonstration data and "
            "would put made-up levies in real emails or quotes: set NRF_REFERENCE_DATA to a "
            "real bundle (and NRF_REFERENCE_DATA_SHA256), or NRF_ALLOW_SYNTHETIC_DATA=true "
            "for a demo",
        )


def prepare_reference_data(
    settings: WorkerSettings,
    default: Path,
    s3_client: Callable[[], Any],
    heartbeat: HeartbeatStore | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> ReadyBundle:
    """The bundle to open, verified against the pin; raises NrfError (see the exit codes).

    Without ``NRF_REFERENCE_DATA`` the bundled synthetic data is used, which is refused unless
    ``NRF_ALLOW_SYNTHETIC_DATA=true``: a worker must never quote from it by accident.
    """
    if heartbeat is not None:
        heartbeat.set_status(WorkerStatus.STARTING)
        heartbeat.beat(time.time())
    pinned = settings.reference_data_sha256
    location = parse_location(settings.reference_data) if settings.reference_data else default
    log.info("reference_data_resolving", extra={"location": str(location), "sha256": pinned})
    if isinstance(location, S3Location):
        assert pinned is not None, "settings require a digest for an S3 bundle"
        cache = Path(settings.reference_data_cache or default_cache_dir())
        progress = DownloadProgress(heartbeat)
        path = fetch_s3(s3_client(), location, pinned, cache, progress, cancelled)
    else:
        path = verify_local(location, pinned) if pinned else location
    info = bundle_identity(path, pinned)
    refuse_unless_allowed(settings, path, info)
    log.info(
        "reference_data_ready",
        extra={
            "bundle_name": info.name,
            "bundle_version": info.version,
            "bundle_sha256": info.sha256,
            "synthetic": info.synthetic,
            "path": str(path),
        },
    )
    if heartbeat is not None:
        heartbeat.set_bundle_version(info.version)
    return ReadyBundle(path, info)


def verify_reference_data(
    settings: WorkerSettings,
    heartbeat: HeartbeatStore | None,
    cancelled: Callable[[], bool],
    event: str = "worker_cannot_start",
) -> WorkerSettings | int:
    """Settings naming the verified local bundle, or the exit code the process stops with.

    The worker's supervisor and `nrf serve` run this before anything opens the bundle; both
    live as long as the task, so it imports neither the container nor the geo stack (~140 MB),
    only boto3 and the bundle's identity reader. A refusal is logged as ``event``.
    """
    import boto3

    def s3() -> Any:  # configured as the core root's s3_client: region and endpoint
        return boto3.client("s3", region_name=settings.region, endpoint_url=settings.endpoint_url)

    def refused(code: str, error: str, exit_code: int) -> int:
        log.error(event, extra={"code": code, "error": error})
        if heartbeat is not None:
            heartbeat.set_status(WorkerStatus.ERROR)
        return exit_code

    try:
        ready = prepare_reference_data(settings, bundled_synthetic(), s3, heartbeat, cancelled)
    except NrfError as exc:
        if exc.code == CANCELLED:
            log.info("reference_data_download_stopped")
            return EXIT_OK
        synthetic = exc.code == SYNTHETIC_REFUSED
        return refused(exc.code, exc.message, EXIT_SYNTHETIC_REFUSED if synthetic else EXIT_FATAL)
    except OSError as exc:  # the cache folder cannot be made or written, say
        return refused("reference_data_io_error", str(exc), EXIT_FATAL)
    # The digest travels with the path (stamped with its size and mtime): the worker and job
    # processes, and a job process replacing one that died, open the bundle without hashing
    # it again, so the one hash is here, while the task is STARTING and /ready says so.
    verified = stamped_digest(ready.path, ready.info.sha256)
    return attrs.evolve(settings, reference_data=str(ready.path), reference_data_verified=verified)
