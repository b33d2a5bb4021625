"""A job found finished whose record holds no email for its requester (``nrf dlq``, an older
worker): a failure is told with its own codes and message, which the failed template needs; a
success's figures are not invented (Notify would refuse the email for missing fields)."""

from __future__ import annotations

from test_exactly_once import make
from test_notify_templates import REQUEST, SETTINGS
from test_process_job import body, msg

from fakes import FakeClock, FakeNotifier, FakeResultStore
from nrf.domain.email_fields import RUN_FIELDS, completed_without_run, personalisation
from nrf.domain.jobs import JobRecord, JobStatus, NotificationKind
from support.runs import RUN

FAILED = JobRecord(
    job_id="job-1",
    status=JobStatus.FAILED,
    error_codes=("dead_lettered", "too_many_receives"),
    message="The job could not be completed after 5 attempts.",
    finished_at=1.0,
)


def test_a_failed_record_without_its_email_sends_the_failure_with_the_records_codes() -> None:
    store, notifier = FakeResultStore(), FakeNotifier()
    store.records["job-1"] = FAILED
    outcome = make(store, notifier, FakeClock(1_000.0))(msg(body()))

    assert outcome.delete is True
    (sent,) = notifier.delivered
    assert (sent.kind, sent.recipient) == (NotificationKind.FAILED, "planner@example.gov.uk")
    # The fields of deploy/notify/job-failed.txt, from the record (not the request).
    assert sent.personalisation["job_reference"] == "job-1"
    assert sent.personalisation["error_codes"] == "dead_lettered, too_many_receives"
    assert sent.personalisation["error_message"] == FAILED.message
    # ... and it is recorded, so the next receive sends nothing more.
    (entry,) = store.records["job-1"].notifications
    assert (entry.kind, entry.sent, entry.pending) == (NotificationKind.FAILED, True, False)
    make(store, notifier, FakeClock(2_000.0))(msg(body(), count=2))
    assert len(notifier.delivered) == 1


def test_a_succeeded_record_without_its_email_points_to_the_report_for_its_figures() -> None:
    store, notifier = FakeResultStore(), FakeNotifier()
    store.records["job-1"] = JobRecord(job_id="job-1", status=JobStatus.SUCCEEDED, finished_at=1.0)
    outcome = make(store, notifier, FakeClock(1_000.0))(msg(body()))

    assert outcome.delete is True
    (sent,) = notifier.delivered
    assert sent.kind is NotificationKind.COMPLETED
    fields = dict(sent.personalisation)
    assert fields["levy_amount"] == fields["nitrogen_total_kg_per_year"] == "see the report"
    # The harness sets results_base_url to https://results.example/jobs.
    assert fields["report_link"] == "https://results.example/jobs/job-1/result.html"
    assert fields["job_reference"] == "job-1" and fields["development_name"] == "Test"


def test_the_fields_said_to_be_in_the_report_are_exactly_those_an_assessment_adds() -> None:
    with_run = set(personalisation(SETTINGS, REQUEST, RUN))
    without = set(personalisation(SETTINGS, REQUEST, None))
    assert with_run - without == set(RUN_FIELDS)
    assert set(completed_without_run(SETTINGS, REQUEST)) == with_run
