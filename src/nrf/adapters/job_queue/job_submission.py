"""Turn validated developments into canonical job messages for `nrf submit` and the demo."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

import shapely

from nrf.domain.bng import bng_crs_member
from nrf.domain.model import Development

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def job_id_for(prefix: str, dev: Development) -> str:
    """``PREFIX-RLB-ID``, made safe as a folder name and at most 128 characters."""
    safe = _UNSAFE.sub("_", dev.id).strip("._-")
    return f"{prefix}-{dev.rlb_id:04d}-{safe}"[:128]


def job_messages(
    developments: Sequence[Development],
    prefix: str,
    email: str | None = None,
    rules: str | None = None,
) -> Iterator[tuple[str, str]]:
    """(job id, JSON body) per development, boundary inline in EPSG:27700."""
    for dev in developments:
        job_id = job_id_for(prefix, dev)
        geometry = dict(shapely.geometry.mapping(dev.boundary))
        geometry["crs"] = bng_crs_member()
        message: dict[str, object] = {
            "job_id": job_id,
            "assessment_type": "nutrient",
            "development": {
                "name": dev.name,
                "dwellings": dev.dwellings,
                "dwelling_category": dev.dwelling_category,
            },
            "boundary": geometry,
            "trace_id": job_id,
        }
        if email:
            message["email"] = email
        if rules:
            message["rules"] = rules
        yield job_id, json.dumps(message)
