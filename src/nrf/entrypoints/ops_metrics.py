"""EMF records for the fleet (heartbeats, housekeeping counts), printed to stdout."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

SERVICE = "nrf-worker"


def emf_counts(namespace: str, counts: Mapping[str, int | float], **fields: object) -> str:
    """One embedded-metric-format line: every count a metric, dimension ``Service``."""
    return json.dumps(
        {
            "_aws": {
                "Timestamp": int(time.time() * 1000),
                "CloudWatchMetrics": [
                    {
                        "Namespace": namespace,
                        "Dimensions": [["Service"]],
                        "Metrics": [{"Name": name, "Unit": "Count"} for name in counts],
                    }
                ],
            },
            "Service": SERVICE,
            **fields,
            **counts,
        }
    )


def publish_counts(namespace: str, counts: Mapping[str, int | float], **fields: object) -> None:
    # stdout on its own: the CloudWatch agent (awslogs + EMF) parses these lines there.
    print(emf_counts(namespace, counts, **fields), flush=True)
