"""The real `nrf worker`, idle on the production long poll, stops soon after SIGTERM, and every
line it logs on the way (gunicorn's too) is JSON, even where gunicorn cannot write to $HOME.

ECS waits ``stopTimeout`` after SIGTERM, then SIGKILLs: a worker idling in a 20 s receive used
to take the rest of that receive to notice (18.5-21 s measured in the image).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

from support.moto_server import MotoServer, free_port
from support.worker_jobs import job_body, make_queues, queue_counts, status_of, worker_env
from support.worker_process import running_worker

# The template's long poll (and the setting's default): what an idle worker waits on.
PRODUCTION_WAIT = "20"
# A bound on the stop, not a measurement: far under the 20 s receive the old loop sat in, far
# over the ~2 s poll slice plus shutdown (benchmarks/idle_stop.py measures it).
STOP_BOUND_SECONDS = 12


def test_an_idle_worker_stops_within_seconds_of_sigterm_logging_only_json(
    aws: MotoServer, tmp_path: Path
) -> None:
    sqs = aws.client("sqs")
    queues = make_queues(sqs, "idle_stop_jobs")
    # A HOME gunicorn cannot make its control socket under, even as root (it is a file): the
    # image's user has no home at all.
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    env = worker_env(
        aws.endpoint_url,
        queues.name,
        tmp_path / "results",
        free_port(),
        AWS_SQS_WAIT_TIME_SECONDS=PRODUCTION_WAIT,
        HOME=str(home),
    )
    with running_worker(env) as worker:
        worker.wait_for("worker_started", timeout=90)
        # One job first, so the worker has polled, worked and gone back to an idle receive.
        sqs.send_message(QueueUrl=queues.url, MessageBody=job_body("idle-1", email=None))
        worker.wait_for("job_finished", timeout=60, job_id="idle-1")
        time.sleep(1.0)  # into the next (idle) receive

        signalled = time.monotonic()
        worker.process.send_signal(signal.SIGTERM)
        code = worker.wait(timeout=60)
        took = time.monotonic() - signalled

    assert code == 0, worker.transcript()
    assert took < STOP_BOUND_SECONDS, f"stopped {took:.1f} s after SIGTERM"
    assert status_of(tmp_path / "results", "idle-1")["status"] == "succeeded"
    assert queue_counts(sqs, queues.url) == (0, 0)
    assert queue_counts(sqs, queues.dlq_url) == (0, 0)
    assert worker.other_lines == [], "lines that are not JSON"
