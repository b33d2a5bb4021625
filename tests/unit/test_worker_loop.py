"""WorkerLoop with an in-memory queue, a fake clock and a hand-driven executor."""

import random
import threading
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from attrs import define

from fakes import FakeClock, FakeHeartbeatStore, FakeJobQueue, FakeResultStore
from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.job_queue.job_inbox import ReadingJobInbox
from nrf.domain.job_request import IncomingJob
from nrf.domain.jobs import QueueFatalError, QueueMessage, QueueTransientError
from nrf.entrypoints.worker.acks import Acks
from nrf.entrypoints.worker.in_flight import InFlight
from nrf.entrypoints.worker.loop import WorkerLoop
from nrf.service_layer.job_outcome import JobOutcome, OutcomeStatus, RetryPolicy


class ManualExecutor:
    """Futures the test completes by hand; records what was submitted and torn down."""

    def __init__(self) -> None:
        self.futures: list[tuple[QueueMessage, Future[JobOutcome]]] = []
        self.jobs: list[IncomingJob] = []
        self.terminated = 0
        self.replaced = 0
        self.recovered = 0
        self.broken = False  # submit raises BrokenProcessPool until recovered
        self.dead: set[str] = set()  # keys whose job process died on its own

    def submit(self, key: str, work: IncomingJob) -> Future[JobOutcome]:
        if self.broken:
            raise BrokenProcessPool("a job process died")
        future: Future[JobOutcome] = Future()
        self.futures.append((work.message, future))
        self.jobs.append(work)
        return future

    def recover(self) -> bool:
        self.recovered += 1
        self.broken = False
        return True

    def died_running(self, key: str) -> bool:
        return key in self.dead

    def forget(self, key: str) -> None:
        self.dead.discard(key)

    def replace(self) -> None:
        self.replaced += 1

    def terminate(self) -> None:
        self.terminated += 1


class TimeoutRecorder:
    """Stands in for FailJob.timed_out: records the job and the seconds, fails it for good."""

    def __init__(self) -> None:
        self.recorded: list[tuple[str, float]] = []

    def __call__(self, job: IncomingJob, seconds: float) -> JobOutcome:
        self.recorded.append((job.job_id, seconds))
        return JobOutcome(
            job_id=job.job_id,
            status=OutcomeStatus.FAILED,
            delete=True,
            error_codes=("job_timeout",),
        )


@define
class Rig:
    loop: WorkerLoop
    queue: FakeJobQueue
    heartbeat: FakeHeartbeatStore
    executor: ManualExecutor
    clock: FakeClock
    claims: FakeResultStore
    timeouts: TimeoutRecorder


def rig(
    concurrency: int = 1,
    max_messages: int = 1,
    queue: FakeJobQueue | None = None,
    acks: Acks | None = None,
    **overrides: Any,
) -> Rig:
    clock = queue.clock if queue is not None else FakeClock()
    queue = queue or FakeJobQueue(clock, visibility_timeout=600)
    settings = WorkerSettings(
        concurrency=concurrency, max_messages=max_messages, **{"wait_time_seconds": 0, **overrides}
    )
    retry = RetryPolicy(base_seconds=settings.retry_base_seconds)
    inbox, claims = ReadingJobInbox(queue), FakeResultStore()
    executor, heartbeat, timeouts = ManualExecutor(), FakeHeartbeatStore(), TimeoutRecorder()
    loop = WorkerLoop(
        inbox=inbox,
        in_flight=InFlight(inbox, claims, settings, clock, retry),
        heartbeat=heartbeat,
        executor=executor,
        settings=settings,
        clock=clock,
        stop=threading.Event(),
        retry=retry,
        record_timeout=timeouts,
        acks=acks,
    )
    return Rig(loop, queue, heartbeat, executor, clock, claims, timeouts)


def make(
    concurrency: int = 1, max_messages: int = 1, **overrides: Any
) -> tuple[WorkerLoop, FakeJobQueue, FakeHeartbeatStore, ManualExecutor, FakeClock]:
    r = rig(concurrency, max_messages, **overrides)
    return r.loop, r.queue, r.heartbeat, r.executor, r.clock


def done(job_id: str, *, delete: bool = True, retry_after: int = 0) -> JobOutcome:
    status = OutcomeStatus.SUCCEEDED if delete else OutcomeStatus.RETRY
    return JobOutcome(job_id=job_id, status=status, delete=delete, retry_after=retry_after)


def test_a_finished_job_is_deleted_and_a_retried_one_gets_its_backoff() -> None:
    loop, queue, heartbeat, executor, _ = make(concurrency=2, max_messages=2)
    queue.send("a")
    queue.send("b")
    loop._step()
    assert [m.body for m, _ in executor.futures] == ["a", "b"]
    assert queue.receive_calls[-1] == (2, 0, 600)  # asks for as many as there are free slots
    (ma, fa), (mb, fb) = executor.futures
    fa.set_result(done("a"))
    fb.set_result(done("b", delete=False, retry_after=60))
    loop._step()
    assert queue.deleted == [ma.message_id]
    assert queue.visibility_changes == [(mb.message_id, 60)]
    assert heartbeat.state.job_id is None


def test_an_idle_receive_waits_in_slices_a_stop_can_come_between() -> None:
    # The production long poll is 20 s; a SIGTERM is only seen between receives, so an idle one
    # asks SQS to wait 2 s at most (and a job in flight brings the loop back every second).
    loop, queue, _, executor, _ = make(wait_time_seconds=20)
    loop._step()
    assert queue.receive_calls[-1] == (1, 2, 600)
    queue.send("a")
    loop._step()
    assert len(executor.futures) == 1
    loop, queue, _, _, _ = make(concurrency=2, max_messages=2, wait_time_seconds=20)
    queue.send("a")
    loop._step()
    loop._step()
    assert [wait for _, wait, _ in queue.receive_calls] == [2, 1]
    # A shorter setting is kept as it is.
    loop, queue, _, _, _ = make(wait_time_seconds=1)
    loop._step()
    assert queue.receive_calls[-1] == (1, 1, 600)


def test_no_receive_while_every_slot_is_busy() -> None:
    loop, queue, _, executor, _ = make(concurrency=1)
    queue.send("a")
    queue.send("b")
    loop._step()
    calls = len(queue.receive_calls)
    loop._stop.set()  # so the busy wait returns at once
    loop._step()
    assert len(queue.receive_calls) == calls
    assert len(executor.futures) == 1


def test_visibility_is_extended_while_a_long_job_runs() -> None:
    loop, queue, _, executor, clock = make(
        extend_visibility_every_seconds=240, visibility_extension_seconds=300
    )
    queue.send("slow")
    loop._step()
    message, _ = executor.futures[0]
    clock.advance(239)
    loop._in_flight.extend_due(clock.now())
    assert queue.visibility_changes == []
    clock.advance(2)
    loop._in_flight.extend_due(clock.now())
    assert queue.visibility_changes == [(message.message_id, 300)]
    clock.advance(241)  # t = 482: 241 s since the extension at t = 241, due again at 481
    loop._in_flight.extend_due(clock.now())
    assert queue.visibility_changes == [(message.message_id, 300)] * 2
    # No second consumer: the message stays invisible well past the first timeout.
    assert queue.receive(1, 0, 600) == []


def test_health_state_tracks_the_running_job() -> None:
    loop, queue, heartbeat, executor, _ = make()
    queue.send("x" * 20_000)
    loop._step()
    assert heartbeat.state.job_id == executor.futures[0][0].message_id
    assert heartbeat.state.expected_seconds == 32.0  # 30 s + 1 s per 10 kB: 20 000 B is 2 s


def test_drain_hands_unfinished_jobs_back_at_once() -> None:
    loop, queue, heartbeat, executor, _ = make(shutdown_grace_seconds=0)
    queue.send("a")
    loop._step()
    message, _ = executor.futures[0]
    loop._stop.set()
    assert loop.run() == 0
    assert executor.terminated == 1
    assert (message.message_id, 0) in queue.visibility_changes
    assert heartbeat.state.draining is True


class RecordingStop(threading.Event):
    """A stop event whose waits return at once and are recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        return self.is_set()


class Draws(random.Random):
    """uniform(a, b) always draws ``at`` × the range from a: 1.0 its top, 0.0 its bottom."""

    def __init__(self, at: float) -> None:
        super().__init__(0)
        self.at = at

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.at


def test_transient_queue_errors_back_off_and_report_not_ready() -> None:
    loop, queue, heartbeat, _, _ = make()
    stop = loop._stop = RecordingStop()
    loop._retry.rng = Draws(1.0)
    # The loop's rule for a queue it cannot reach: wait min(60, 2^min(failures, 6)) s times a
    # draw from [0.5, 1]. At the top of the draw: 2^1, 2^2, 2^3, 2^4, 2^5 = 2, 4, 8, 16, 32,
    # then 2^6 = 64 and 2^min(7, 6) = 64, both capped to 60.
    queue.errors.extend(QueueTransientError("throttled") for _ in range(7))
    for _ in range(7):
        loop._step()
        assert heartbeat.state.queue_reachable is False
    assert stop.waits == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    loop._step()  # reached again: the count of failures starts over
    assert heartbeat.state.queue_reachable is True
    loop._retry.rng = Draws(0.0)
    queue.errors.append(QueueTransientError("throttled"))
    loop._step()
    assert stop.waits[-1] == 1.0  # first failure again, bottom of the draw: 2^1 × 0.5


def test_fatal_queue_error_stops_with_status_error() -> None:
    loop, queue, heartbeat, _, _ = make()
    queue.errors.append(QueueFatalError("no such queue"))
    assert loop.run() == 3
    assert heartbeat.state.status == -1


def test_a_job_whose_process_died_is_retried_with_the_configured_back_off() -> None:
    loop, queue, _, executor, _ = make(retry_base_seconds=5)
    queue.send("a")
    loop._step()
    message, future = executor.futures[0]
    executor.dead.add(message.message_id)
    future.set_exception(BrokenProcessPool("killed"))
    loop._step()
    assert executor.recovered == 1
    [(message_id, delay)] = queue.visibility_changes
    # NRF_RETRY_BASE_SECONDS=5, first receive: 5 × 2^0 = 5 s, plus at most 20 % jitter.
    assert message_id == message.message_id and 5 <= delay <= 6


def test_jobs_killed_beside_a_dead_job_process_are_handed_back_at_once() -> None:
    loop, queue, _, executor, _ = make(concurrency=2, max_messages=2)
    queue.send("dies")
    queue.send("beside")
    loop._step()
    (dead, fd), (beside, fb) = executor.futures
    executor.dead.add(dead.message_id)
    for future in (fd, fb):  # a broken pool fails every job it holds
        future.set_exception(BrokenProcessPool("killed"))
    loop._step()
    assert executor.recovered == 1
    changes = dict(queue.visibility_changes)
    assert changes[beside.message_id] == 0, "nothing wrong with it: back at once"
    # Its own job waits for the back-off: first receive, 30 × 2^0 = 30 s plus up to 20 %.
    assert 30 <= changes[dead.message_id] <= 36


def test_a_pool_broken_by_an_idle_death_is_replaced_and_polling_goes_on() -> None:
    loop, queue, _, executor, _ = make()
    executor.broken = True  # an idle job process was killed; the next submit finds out

    queue.send("a")
    real_submit = executor.submit

    def submit(key: str, work: IncomingJob) -> Future[JobOutcome]:
        try:
            return real_submit(key, work)
        except BrokenProcessPool:  # what JobProcesses.submit does: recover, submit again
            executor.recover()
            return real_submit(key, work)

    executor.submit = submit  # type: ignore[method-assign]  # as JobProcesses recovers
    loop._step()
    assert executor.recovered == 1
    assert [m.body for m, _ in executor.futures] == ["a"]


def test_a_message_that_cannot_be_dispatched_is_handed_back_and_the_loop_goes_on() -> None:
    loop, queue, _, executor, _ = make()
    executor.broken = True  # and it stays broken: submit keeps raising
    executor.recover = lambda: False  # type: ignore[method-assign]
    queue.send("a")
    loop._step()
    [(_, seconds)] = queue.visibility_changes
    assert seconds == 0
    queue.send("b")
    executor.broken = False
    loop._step()
    assert len(executor.futures) == 1, "the next receive is dispatched"


class GatedDeleteQueue(FakeJobQueue):
    """Deletes wait for ``gate`` (or fail with ``delete_error``): a slow or broken endpoint."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock, visibility_timeout=600)
        self.gate = threading.Event()
        self.delete_error: Exception | None = None

    def delete(self, message: QueueMessage) -> None:
        self.gate.wait(10)
        if self.delete_error is not None:
            raise self.delete_error
        super().delete(message)


def background(queue: GatedDeleteQueue):
    from concurrent.futures import ThreadPoolExecutor

    acks = ThreadPoolExecutor(1)
    r = rig(queue=queue, acks=acks, shutdown_grace_seconds=0)
    return r.loop, acks, r.executor


def test_the_next_job_is_received_while_the_last_one_is_still_being_deleted() -> None:
    clock = FakeClock()
    queue = GatedDeleteQueue(clock)
    loop, acks, executor = background(queue)
    queue.send("a")
    queue.send("b")
    loop._step()
    ((ma, fa),) = executor.futures
    fa.set_result(done("a"))
    # One step finishes "a" (its delete goes to the acknowledgement thread, where it
    # hangs) and receives "b" without waiting for that delete.
    loop._step()
    assert [m.body for m, _ in executor.futures] == ["a", "b"]
    assert queue.deleted == []
    queue.gate.set()
    loop._stop.set()
    assert loop.run() == 0  # stopping waits for every acknowledgement
    assert queue.deleted == [ma.message_id]
    acks.shutdown()


def test_a_fatal_error_from_a_background_delete_stops_the_loop() -> None:
    clock = FakeClock()
    queue = GatedDeleteQueue(clock)
    queue.delete_error = QueueFatalError("access denied")
    queue.gate.set()
    loop, acks, executor = background(queue)
    queue.send("a")
    loop._step()
    executor.futures[0][1].set_result(done("a"))
    loop._step()
    acks.shutdown(wait=True)  # the delete has failed by now
    assert loop.run() == 3


def test_inline_acknowledgements_run_at_once_and_keep_their_errors() -> None:
    from nrf.entrypoints.worker.acks import InlineAcks

    ran: list[int] = []
    assert InlineAcks().submit(lambda: ran.append(1)).result() is None
    assert ran == [1]

    def fail() -> None:
        raise QueueFatalError("gone")

    assert isinstance(InlineAcks().submit(fail).exception(), QueueFatalError)
