"""Each process's root wires the configured adapters; tests swap fakes in with override."""

from fakes import FakeClock, FakeJobQueue, FakeNotifier
from nrf.adapters.environment.settings import load_settings
from nrf.adapters.notifier.log_notifier import LogNotifier
from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.domain.jobs import Notification, NotificationKind
from nrf.entrypoints.roots.core import Core, build
from nrf.entrypoints.roots.dead_letters import build_dead_letter_root
from nrf.entrypoints.roots.job import build_job_root
from nrf.entrypoints.roots.worker import build_worker_root
from nrf.service_layer.process_job import ProcessJob


def test_defaults_are_the_embedded_adapters(tmp_path) -> None:
    c = build(Core, settings=load_settings({"NRF_RESULTS_DIR": str(tmp_path)}))
    assert isinstance(c.notifier(), LogNotifier)
    assert isinstance(c.result_store(), LocalResultStore)
    limits = c.limits()
    assert (limits.max_file_bytes, limits.max_features) == (50 * 1024 * 1024, 10_000)


def test_limits_come_from_the_environment() -> None:
    env = {"NRF_MAX_SITES_PER_JOB": "3", "NRF_MAX_SITE_AREA_HA": "12.5"}
    limits = build(Core, settings=load_settings(env)).limits()
    assert (limits.max_features, limits.max_site_area_ha) == (3, 12.5)


def test_a_fake_notifier_can_be_swapped_in() -> None:
    c = build_job_root()
    fake = FakeNotifier()
    with c.notifier.override(fake):
        process = c.process_job()
        assert isinstance(process, ProcessJob)
        process._started._notifier.send(
            Notification(kind=NotificationKind.STARTED, recipient="a@example.gov.uk", job_id="j1")
        )
    # The job's emails reach the fake through the label that says the data is synthetic
    # (the root's default bundle is the bundled synthetic one).
    assert [n.job_id for n in fake.sent] == ["j1"]
    assert fake.sent[0].personalisation["synthetic_data"] == "yes"


def test_the_retry_base_from_the_environment_reaches_every_retry() -> None:
    c = build_worker_root(load_settings({"NRF_RETRY_BASE_SECONDS": "5"}))
    c.job_queue.override(FakeJobQueue(FakeClock()))
    retry = c.retry_policy()
    # One policy for the worker loop, the claim step and the use cases: 5 × 2^(n-1).
    assert c.worker_loop(heartbeat=None, executor=None, stop=None)._retry is retry
    assert c.in_flight()._retry is retry
    # Every ending's retries, the worker's and nrf dlq's, are decided by JobEnd's decider.
    assert c.process_job()._end._decider._retry is retry
    dlq = build_dead_letter_root(load_settings({"NRF_RETRY_BASE_SECONDS": "5"}))
    dlq_end = dlq.dead_letter_end()
    assert dlq_end._decider._retry is dlq.retry_policy()
    assert dlq.retry_policy().base_seconds == 5
    assert 20 <= retry.delay(3) <= 24  # 5 × 2^2 = 20, plus up to 20 % jitter


def test_the_store_is_the_claims_and_the_inbox_reads_the_queue(tmp_path) -> None:
    c = build_worker_root(load_settings({"NRF_RESULTS_DIR": str(tmp_path)}))
    c.job_queue.override(FakeJobQueue(FakeClock()))
    assert c.job_claims() is c.result_store()
    assert c.job_inbox()._queue is c.job_queue()


def test_the_worker_ends_a_timed_out_job_with_the_job_roots_wiring() -> None:
    c = build_worker_root()
    c.job_queue.override(FakeJobQueue(FakeClock()))
    loop = c.worker_loop(heartbeat=None, executor=None, stop=None)
    assert loop._record_timeout == c.fail_job().timed_out  # the same FailJob, bound


def test_only_the_command_line_splits_a_batch_over_processes() -> None:
    # A worker job is one development, so the worker keeps everything in its job process.
    assert build(Core).site_map().processes == 1
    c = build(Core, assess_processes=3)
    assert c.site_map().processes == 3
    assert c.assess_developments()._map is c.site_map()
