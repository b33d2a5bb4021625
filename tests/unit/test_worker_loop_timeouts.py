"""WorkerLoop paths around one job: timeout, claim renewal and loss, duplicates, grace, errors."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import pytest
from test_worker_loop import done, rig

from fakes import FakeJobQueue
from nrf.adapters.job_queue.job_message import claim_owner
from nrf.domain.claims import Lease
from nrf.domain.jobs import QueueMessage, QueueTransientError

LIMITS: dict[str, Any] = {
    "job_timeout_seconds": 900,
    "visibility_timeout": 600,
    "extend_visibility_every_seconds": 240,
    "visibility_extension_seconds": 300,
}


def job(job_id: str) -> str:
    boundary = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}
    development = {"dwellings": 1, "dwelling_category": "housing"}
    return json.dumps({"job_id": job_id, "boundary": boundary, "development": development})


def test_a_job_past_the_timeout_is_failed_by_the_worker_and_its_neighbour_handed_back() -> None:
    r = rig(concurrency=2, max_messages=2, **LIMITS)
    r.queue.send(job("slow"))
    r.loop._step()
    r.clock.advance(100)
    r.queue.send(job("quick"))
    r.loop._step()
    (slow, _), (quick, _) = r.executor.futures

    r.clock.advance(800)  # slow: 900 s, not past the limit yet
    r.loop._step()
    assert r.executor.replaced == 0
    r.clock.advance(1)
    r.loop._step()

    assert r.executor.replaced == 1, "its job process is gone (with the pool)"
    # Recorded by the worker itself (100 + 800 + 1 = 901 s), not sent into a fresh process.
    assert r.timeouts.recorded == [("slow", 901)]
    assert slow.message_id in r.queue.deleted
    assert r.claims.leases["slow"].expires_at == r.clock.now(), "released after recording"
    assert (quick.message_id, 0) in r.queue.visibility_changes, "handed back at once"
    assert ("quick", claim_owner(quick)) in r.claims.releases, "and its claim released"
    [(again, quick_again)] = r.executor.futures[2:]  # quick, back at once, is taken again
    assert again.message_id == quick.message_id
    assert r.claims.leases["quick"].held_by(claim_owner(again)), "by its new receive"
    quick_again.set_result(done("quick"))
    r.loop._step()
    assert r.executor.replaced == 1


def test_the_claim_is_taken_before_dispatch_renewed_with_the_visibility_and_released() -> None:
    r = rig(**LIMITS)
    r.queue.send(job("long"))
    r.loop._step()
    [(message, future)] = r.executor.futures
    lease = r.claims.leases["long"]
    assert lease.held_by(claim_owner(message)) and lease.expires_at == r.clock.now() + 600
    assert r.executor.jobs[0].receipt.first_claim is True, "the job process is told"

    r.clock.advance(240)
    r.loop._step()
    assert r.claims.leases["long"].expires_at == r.clock.now() + 300
    future.set_result(done("long"))
    r.loop._step()
    assert r.claims.leases["long"].expires_at == r.clock.now()


def test_a_copy_held_by_another_message_is_deleted_without_running() -> None:
    r = rig(**LIMITS)
    r.claims.leases["dup"] = Lease(
        job_id="dup", owner="other-message/abcd", expires_at=r.clock.now() + 500
    )
    r.queue.send(job("dup"))
    r.loop._step()
    assert r.executor.futures == [], "not dispatched"
    assert len(r.queue.deleted) == 1 and r.queue.messages == {}


def test_another_receive_of_the_holding_message_waits_for_the_lease() -> None:
    r = rig(**LIMITS)
    message_id = r.queue.send(job("held"))
    r.claims.leases["held"] = Lease(
        job_id="held", owner=f"{message_id}/an-earlier-receive", expires_at=r.clock.now() + 500
    )
    r.loop._step()
    assert r.executor.futures == []
    assert r.queue.visibility_changes == [(message_id, 501)]  # 500 s left + 1


def test_with_the_store_down_a_job_waits_but_an_unreadable_message_is_still_judged() -> None:
    r = rig(concurrency=2, max_messages=2, **LIMITS)
    r.claims.claim_failures = 2
    good = r.queue.send(job("fine"))
    r.queue.send("not json")
    r.loop._step()
    [(judged, _)] = r.executor.futures
    assert judged.body == "not json", "bad input needs no claim to be failed"
    [(retried, delay)] = r.queue.visibility_changes
    assert retried == good and 30 <= delay <= 36  # 30 × 2^0 plus up to 20 % jitter


def test_a_failed_extension_is_kept_for_the_jobs_stats(caplog: pytest.LogCaptureFixture) -> None:
    class FlakyQueue(FakeJobQueue):
        def change_visibility(self, message: QueueMessage, seconds: int) -> None:
            if seconds == 300:
                raise QueueTransientError("throttled", code="throttled")
            super().change_visibility(message, seconds)

    r = rig(queue=FlakyQueue(rig().clock, visibility_timeout=600), **LIMITS)
    r.queue.send(job("flaky"))
    r.loop._step()
    r.clock.advance(240)
    with caplog.at_level(logging.INFO, logger="nrf.worker"):
        r.loop._step()
        r.executor.futures[0][1].set_result(done("flaky"))
        r.loop._step()
    [stats] = [rec for rec in caplog.records if rec.msg == "visibility_extension_stats"]
    assert (stats.count, stats.last_error) == (0, "throttled")  # type: ignore[attr-defined]
    assert r.queue.deleted, "the job itself still finished"


def test_a_lost_claim_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    r = rig(**LIMITS)
    r.queue.send(job("taken"))
    r.loop._step()
    r.clock.advance(240)
    # Our lease ran out while frozen and another owner took the job over.
    r.claims.leases["taken"] = Lease(
        job_id="taken", owner="another/owner", expires_at=r.clock.now() + 600
    )
    with caplog.at_level(logging.ERROR, logger="nrf.worker"):
        r.loop._step()
    assert [rec.msg for rec in caplog.records] == ["claim_lost"]


def test_draining_waits_within_the_grace_for_a_job_to_finish() -> None:
    r = rig(shutdown_grace_seconds=30, **LIMITS)
    r.queue.send(job("finishing"))
    r.loop._step()
    [(message, future)] = r.executor.futures
    threading.Timer(0.2, future.set_result, [done("finishing")]).start()
    r.loop._stop.set()
    assert r.loop.run() == 0
    assert r.queue.deleted == [message.message_id], "finished and deleted, not handed back"
    assert (message.message_id, 0) not in r.queue.visibility_changes
    assert r.executor.terminated == 0
