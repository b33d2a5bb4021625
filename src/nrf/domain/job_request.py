"""A job as the domain sees it: the request, or why it was refused, plus its receipt.

The queue's message formats (canonical, Defra quote, SNS envelope) are read once, at the
edge (``nrf.adapters.job_queue.job_message``); everything after works on these values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from attrs import frozen

from nrf.domain.errors import InvalidInput, Problem
from nrf.domain.jobs import QueueMessage

# Defra's backend takes up to 999,999 housing units (its MAX_RESIDENTIAL_UNITS); more is a
# typo. Used by the job reader and the file reader.
MAX_DWELLINGS = 999_999
S3_URI = re.compile(r"s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])/(.+)")


@frozen(kw_only=True)
class JobRequest:
    """One assessment job: one development, its boundary inline or in S3."""

    job_id: str
    development_name: str
    dwellings: int
    dwelling_category: str
    source: str
    boundary: Mapping[str, Any] | None  # GeoJSON geometry, Feature or FeatureCollection
    boundary_uri: str | None  # s3://bucket/key
    rules: str | None
    email: str | None
    trace_id: str | None
    schema: str  # "nrf-job/1" or "defra-quote"
    # Defra's quote only: the EDPs its boundary check named (``intersectingEdps[].label``).
    edp_labels: tuple[str, ...] = ()


@frozen(kw_only=True)
class RejectedJob:
    """A message that can never succeed, with whatever identity could be recovered from it."""

    job_id: str  # the message's, or ``message-<message id>`` when it had none
    email: str | None
    trace_id: str | None
    problems: tuple[Problem, ...]

    def error(self) -> InvalidInput:
        return InvalidInput(self.problems)


@frozen(kw_only=True)
class Receipt:
    """The facts of one receive of a message, besides what it asks for."""

    message_id: str
    receive_count: int
    # Who holds the job's claim for this receive: computed once, when the message is read.
    claim_owner: str
    body_bytes: int
    first_claim: bool = False  # no claim existed before ours: the job was never started


@frozen(kw_only=True)
class IncomingJob:
    """A received message, read: its ``body`` is the job to run, or why it is refused."""

    message: QueueMessage  # the queue's handle, for acknowledging
    receipt: Receipt
    body: JobRequest | RejectedJob

    @property
    def job_id(self) -> str:
        return self.body.job_id

    @property
    def trace_id(self) -> str | None:
        return self.body.trace_id

    @property
    def email(self) -> str | None:
        return self.body.email


def allowed_uri(uri: str, bucket: str, prefix: str) -> tuple[str, str] | None:
    """(bucket, key) when ``uri`` is inside the configured bucket and prefix, else None."""
    match = S3_URI.fullmatch(uri)
    if match is None or match.group(1) != bucket:
        return None
    key = match.group(2)
    parts = key.split("/")
    if any(p in ("", ".", "..") for p in parts) or "\\" in key:
        return None
    clean_prefix = prefix.strip("/")
    if clean_prefix and not key.startswith(clean_prefix + "/"):
        return None
    return bucket, key
