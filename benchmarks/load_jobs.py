"""The load run's jobs: the 245 real sites, random 0.1-100 ha sites and a few invalid messages."""

from __future__ import annotations

import json
import random

from attrs import evolve, frozen

from benchmarks.workload import BNW, random_sites, real_sites
from nrf.adapters.job_queue.job_submission import job_messages
from nrf.bundles.synthetic_norfolk import NORFOLK_EXTENT

EMAIL = "load@example.gov.uk"
BNG = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::27700"}}
_BOWTIE = [
    [582800.0, 328200.0],
    [582840.0, 328240.0],
    [582840.0, 328200.0],
    [582800.0, 328240.0],
    [582800.0, 328200.0],
]
_SQUARE = [
    [582800.0, 328200.0],
    [582840.0, 328200.0],
    [582840.0, 328240.0],
    [582800.0, 328240.0],
    [582800.0, 328200.0],
]


@frozen
class LoadJob:
    """One message to send and what must come of it.

    ``job_id`` is None for a body with no recoverable id: the worker names it
    ``message-<MessageId>``, known only once it is sent.
    """

    job_id: str | None
    body: str
    kind: str  # real, random, invalid
    expected_status: str  # succeeded or failed
    expected_code: str | None = None
    emails: bool = True  # whether the requester is told (an unparsable body has no address)


def _invalid(prefix: str) -> list[LoadJob]:
    def canonical(job_id: str, **fields: object) -> str:
        body: dict[str, object] = {
            "job_id": job_id,
            "development": {"name": job_id, "dwellings": 5, "dwelling_category": "housing"},
            "boundary": {"type": "Polygon", "crs": BNG, "coordinates": [_SQUARE]},
            "email": EMAIL,
        }
        body.update(fields)
        return json.dumps(body)

    bowtie = {"type": "Polygon", "crs": BNG, "coordinates": [_BOWTIE]}
    bad_dwellings = {"name": "x", "dwellings": -3, "dwelling_category": "housing"}
    return [
        LoadJob(
            f"{prefix}-bowtie",
            canonical(f"{prefix}-bowtie", boundary=bowtie),
            "invalid",
            "failed",
            "self_intersecting_geometry",
        ),
        LoadJob(
            f"{prefix}-dwellings",
            canonical(f"{prefix}-dwellings", development=bad_dwellings),
            "invalid",
            "failed",
            "invalid_dwellings",
        ),
        LoadJob(
            f"{prefix}-scheme",
            canonical(
                f"{prefix}-scheme", boundary=None, boundary_uri="https://evil.example/x.geojson"
            ),
            "invalid",
            "failed",
            "invalid_boundary_uri",
        ),
        LoadJob(
            f"{prefix}-outside",
            canonical(
                f"{prefix}-outside", boundary=None, boundary_uri="s3://other-bucket/x.geojson"
            ),
            "invalid",
            "failed",
            "boundary_uri_not_allowed",
        ),
        LoadJob(None, '{"job_id": "truncated', "invalid", "failed", "not_json", emails=False),
    ]


def build_jobs(total: int, seed: int, prefix: str = "load") -> list[LoadJob]:
    """``total`` jobs in a seeded random order: five invalid ones, real sites (at most 245,
    about half of the rest) and random sites for the remainder."""
    invalid = _invalid(prefix)
    valid = max(0, total - len(invalid))
    bnw = real_sites(*BNW)[: min(245, valid // 2)]
    randoms = [
        evolve(site, dwelling_category="housing")  # the benchmark leaves it blank
        for site in random_sites(valid - len(bnw), seed, list(NORFOLK_EXTENT))
    ]
    jobs = [
        LoadJob(j, b, "real", "succeeded") for j, b in job_messages(bnw, f"{prefix}-bnw", EMAIL)
    ]
    jobs += [
        LoadJob(j, b, "random", "succeeded")
        for j, b in job_messages(randoms, f"{prefix}-rnd", EMAIL)
    ]
    jobs += invalid
    random.Random(seed).shuffle(jobs)
    return jobs[:total]
