"""Two real workers on one queue, every job sent three times: each computed and emailed once."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from support.fake_notify import FakeNotifyServer
from support.kill_scenario import FAST_RETRIES, settled
from support.moto_server import MotoServer, free_port
from support.worker_jobs import (
    TEMPLATES,
    job_body,
    make_queues,
    queue_counts,
    slow_boundary_geojson,
    worker_env,
)
from support.worker_process import running_worker

# Slow enough (about a second) that copies overlap; small enough for a message body.
SLOWISH = json.loads(slow_boundary_geojson(vertices=6000))


def test_duplicated_messages_across_two_workers_do_no_duplicate_work(
    aws: MotoServer, fake_notify: FakeNotifyServer, tmp_path: Path
) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "fault_dups", max_receive_count=30)
    job_ids = [f"dup-{i}" for i in range(10)]
    env = worker_env(
        aws.endpoint_url, queues.name, tmp_path, free_port(), fake_notify, **FAST_RETRIES
    )
    with (
        running_worker(env) as first,
        running_worker({**env, "AWS_HEALTH_PORT": str(free_port())}) as second,
    ):
        first.wait_for("worker_started", timeout=90)
        second.wait_for("worker_started", timeout=90)
        for job_id in job_ids:  # three copies side by side: both workers hold copies at once
            body = job_body(job_id, boundary=SLOWISH)
            entries = [{"Id": f"c{n}", "MessageBody": body} for n in range(3)]
            sqs.send_message_batch(QueueUrl=queues.url, Entries=entries)

        deadline = time.monotonic() + 120
        while not all(settled(tmp_path, j) for j in job_ids) or queue_counts(sqs, queues.url) != (
            0,
            0,
        ):
            assert time.monotonic() < deadline, (first.transcript(), second.transcript())
            time.sleep(0.2)
        workers = (first, second)
        stored = Counter(e["job_id"] for w in workers for e in w.matching("job_stored"))
        raced = sum(w.count("job_duplicate_deleted") for w in workers)
        waited = sum(w.count("job_claimed_elsewhere") for w in workers)

    assert all(w.count("job_received") for w in workers), "both workers took messages"
    assert [stored[j] for j in job_ids] == [1] * len(job_ids), stored
    emails = Counter((e["reference"], e["template_id"]) for e in fake_notify.emails)
    assert [emails[(j, TEMPLATES["COMPLETED"])] for j in job_ids] == [1] * len(job_ids)
    assert all(emails[(j, TEMPLATES["STARTED"])] <= 1 for j in job_ids)
    assert raced > 0, "copies did meet a held claim: the test exercised the race"
    assert waited == 0, "a copy held by another message is deleted, not put back"
    assert queue_counts(sqs, queues.dlq_url) == (0, 0)
