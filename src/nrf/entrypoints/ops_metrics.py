"""EMF records for the fleet (heartbeats, housekeeping counts), printed to stdout, and the
stall line `nrf housekeep` prints from the same figure as its ``QueueStalled`` metric."""

from __future__ import annotations

from collections.abc import Mapping

from nrf.adapters.telemetry.emf import emf_line
from nrf.domain.stall import StallAction
from nrf.service_layer.stall_alerts import StallReport


def emf_counts(namespace: str, counts: Mapping[str, int | float], **fields: object) -> str:
    """One embedded-metric-format line: every count a metric, dimension ``Service``."""
    return emf_line(namespace, counts, fields)


def publish_counts(namespace: str, counts: Mapping[str, int | float], **fields: object) -> None:
    # stdout on its own: the CloudWatch agent (awslogs + EMF) parses these lines there.
    print(emf_counts(namespace, counts, **fields), flush=True)


def queue_stalled(stall: StallReport) -> int:
    """The ``QueueStalled`` metric: 1 while messages wait with no live worker."""
    return int(stall.stalled_for is not None)


def stall_line(stall: StallReport, dry_run: bool) -> str:
    """What `nrf housekeep` says of the stall, from the figure its metric is made of."""
    would = "would " if dry_run else ""
    if stall.stalled_for is None:
        line = f"stall: none, {stall.waiting} waiting (QueueStalled 0)"
        if stall.action is StallAction.CLEAR:
            line += f"; {would}tell support the stall is over"
        return line
    line = (
        f"stall: yes, {stall.waiting} waiting with no live worker for "
        f"{stall.stalled_for:.0f} s (QueueStalled 1)"
    )
    if stall.action is StallAction.ALERT:
        line += f"; {would}alert support and tell delayed requesters"
    return line
