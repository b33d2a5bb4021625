"""WorkerLoop: JOB_TIMEOUT_SECONDS kills a job and records it failed; claims follow visibility."""

from __future__ import annotations

import threading
from concurrent.futures import Future

from test_worker_loop import ManualExecutor

from fakes import FakeClock, FakeHeartbeatStore, FakeJobQueue, FakeResultStore
from nrf.domain.claims import claim_owner
from nrf.domain.jobs import QueueMessage
from nrf.entrypoints.settings import WorkerSettings
from nrf.entrypoints.worker.loop import WorkerLoop
from nrf.service_layer.job_outcome import JobOutcome


class TimeoutExecutor(ManualExecutor):
    def __init__(self) -> None:
        super().__init__()
        self.timed_out: list[tuple[QueueMessage, float, Future[JobOutcome]]] = []

    def submit_timed_out(self, message: QueueMessage, seconds: float) -> Future[JobOutcome]:
        future: Future[JobOutcome] = Future()
        self.timed_out.append((message, seconds, future))
        return future


def job(job_id: str) -> str:
    return f'{{"job_id": "{job_id}", "development": {{"dwellings": 1}}, "boundary": {{}}}}'


def make():
    clock = FakeClock()
    queue = FakeJobQueue(clock, visibility_timeout=600)
    claims = FakeResultStore()
    executor = TimeoutExecutor()
    settings = WorkerSettings(concurrency=2, max_messages=2, wait_time_seconds=0,
                              job_timeout_seconds=900, visibility_timeout=600,
                              visibility_heartbeat_seconds=240,
                              visibility_extension_seconds=300)  # fmt: skip
    loop = WorkerLoop(queue, FakeHeartbeatStore(), executor, settings, clock,
                      threading.Event(), claims=claims)  # fmt: skip
    return loop, queue, claims, executor, clock


def test_a_job_past_the_timeout_is_killed_failed_and_its_neighbour_handed_back() -> None:
    loop, queue, claims, executor, clock = make()
    queue.send(job("slow"))
    loop._step()
    clock.advance(100)
    queue.send(job("quick"))
    loop._step()
    (slow, _), (quick, _) = executor.futures
    for message, job_id in ((slow, "slow"), (quick, "quick")):  # as the job processes would
        claims.claim(job_id, claim_owner(message), clock.now(), 600)

    clock.advance(800)  # slow: 900 s, not past the limit yet
    loop._step()
    assert executor.replaced == 0
    clock.advance(1)
    loop._step()

    assert executor.replaced == 1, "its job process is gone (with the pool)"
    [(message, seconds, future)] = executor.timed_out
    assert (message.message_id, seconds) == (slow.message_id, 901)
    assert (quick.message_id, 0) in queue.visibility_changes, "handed back at once"
    assert claims.leases["quick"].expires_at == clock.now(), "and its claim released"
    assert claims.leases["slow"].held_by(claim_owner(slow)), "kept while its failure is recorded"
    [(again, quick_again)] = executor.futures[2:]  # quick, back at once, is taken again
    assert again.message_id == quick.message_id
    quick_again.set_result(JobOutcome("quick", "succeeded", delete=True))
    loop._step()
    clock.advance(5000)
    loop._step()
    assert executor.replaced == 1, "recording the failure is not timed out again"
    future.set_result(JobOutcome("slow", "failed", delete=True, error_codes=("job_timeout",)))
    loop._step()
    assert slow.message_id in queue.deleted
    assert claims.leases["slow"].expires_at == clock.now()


def test_the_claim_is_renewed_with_the_visibility_and_released_at_the_end() -> None:
    loop, queue, claims, executor, clock = make()
    queue.send(job("long"))
    loop._step()
    [(message, future)] = executor.futures
    owner = claim_owner(message)
    claims.claim("long", owner, clock.now(), 600)

    clock.advance(240)
    loop._step()
    assert claims.leases["long"].expires_at == clock.now() + 300
    future.set_result(JobOutcome("long", "succeeded", delete=True))
    loop._step()
    assert claims.leases["long"].expires_at == clock.now()
