"""CloudWatch embedded-metric-format lines: one JSON object the agent turns into metrics.

Every metric is a Count unless ``units`` says otherwise; the one dimension is ``Service``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

SERVICE = "nrf-worker"


def emf_line(
    namespace: str,
    metrics: Mapping[str, int | float],
    fields: Mapping[str, object],
    units: Mapping[str, str] | None = None,
) -> str:
    """One EMF record: ``metrics`` as the values, ``fields`` as plain properties before them."""
    units = units or {}
    return json.dumps(
        {
            "_aws": {
                "Timestamp": int(time.time() * 1000),
                "CloudWatchMetrics": [
                    {
                        "Namespace": namespace,
                        "Dimensions": [["Service"]],
                        "Metrics": [
                            {"Name": name, "Unit": units.get(name, "Count")} for name in metrics
                        ],
                    }
                ],
            },
            "Service": SERVICE,
            **fields,
            **metrics,
        }
    )
