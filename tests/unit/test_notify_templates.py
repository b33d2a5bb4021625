"""The GOV.UK Notify templates in deploy/notify/ use exactly the fields the code sends.

Notify refuses an email whose template has a placeholder the request does not fill ("Missing
personalisation"), and a field the code sends that no template shows is a figure nobody reads.
So each template's ((placeholders)) are compared with the fields every sender of its kind gives.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from fakes import FakeClock, FakeNotifier
from nrf.adapters.notifier.data_labelling_notifier import data_labels
from nrf.domain.email_fields import NotifySettings, failure_fields, personalisation
from nrf.domain.job_request import JobRequest
from nrf.domain.jobs import NotificationKind
from nrf.domain.ops_ports import QueueFigures, WaitingJob
from nrf.service_layer.sent_once import SentOnce
from nrf.service_layer.stall_alerts import WatchForStalls
from ops_fakes import FakeQueueInspector, InMemoryOpsRecords
from support.runs import EXCLUDED, NORFOLK, RUN

TEMPLATES = Path(__file__).resolve().parents[2] / "deploy" / "notify"
# ((name)) or Notify's optional content ((name??text shown when name is "yes"))
PLACEHOLDER = re.compile(r"\(\(([^()?]+)(?:\?\?[^()]*)?\)\)")
REQUEST = JobRequest(
    job_id="NRL-000123",
    development_name="Mill Lane",
    dwellings=10,
    dwelling_category="housing",
    source="t",
    boundary=None,
    boundary_uri=None,
    rules=None,
    email="a@example.org",
    trace_id=None,
    schema="defra-quote",
)
SETTINGS = NotifySettings(results_base_url="https://results.example.gov.uk")
# A job's emails pass through DataLabellingNotifier; nrf dlq's and housekeeping's do not.
LABELS = set(data_labels(synthetic=False))
NOW = 1_700_000_000.0


def placeholders(name: str) -> set[str]:
    return set(PLACEHOLDER.findall((TEMPLATES / name).read_text(encoding="utf-8")))


def housekeeping_fields() -> dict[NotificationKind, set[str]]:
    """The fields of the stall notice (to support) and the delay notice (to a requester), as
    WatchForStalls sends them: a stalled queue watched past its 900 s threshold."""
    queue = FakeQueueInspector(QueueFigures(visible=1, in_flight=0, delayed=0, dlq_visible=0))
    queue.waiting = [WaitingJob("late", "late@example.gov.uk", NOW - 950)]
    notifier, clock, records = FakeNotifier(), FakeClock(NOW), InMemoryOpsRecords()
    watch = WatchForStalls(
        queue=queue,
        records=records,
        once=SentOnce(records, notifier, clock),
        clock=clock,
        support_email="support@example.gov.uk",
        threshold_seconds=900,
    )
    watch(live_workers=0)
    clock.advance(900)
    watch(live_workers=0)
    return {n.kind: set(n.personalisation) for n in notifier.sent}


def test_the_completed_template_shows_every_field_of_a_quote_and_no_other() -> None:
    quoted = next(s for s in RUN.sites if s.pricing == NORFOLK)
    refused = next(s for s in RUN.sites if s.levy_refusal == EXCLUDED)
    sent = [
        set(personalisation(SETTINGS, REQUEST, attrs.evolve(RUN, sites=sites))) | LABELS
        for sites in ((quoted,), (refused,), RUN.sites)
    ]
    # A quote, a refusal and a batch send the same fields (a refusal says "not quoted").
    assert sent[0] == sent[1] == sent[2]
    assert {"levy_status", "levy_vat_amount", "levy_amount_including_vat"} <= sent[0]
    assert placeholders("job-completed.txt") == sent[0]


def test_the_started_template_shows_every_field_it_is_sent() -> None:
    sent = set(personalisation(SETTINGS, REQUEST, None)) | LABELS
    assert placeholders("job-started.txt") == sent


def test_the_failed_template_uses_only_what_every_sender_of_it_gives() -> None:
    failure = set(failure_fields("NRL-000123", ["no_edp"], "no EDP covers the site"))
    stall = housekeeping_fields()[NotificationKind.QUEUE_STALLED]
    senders = {
        "failed job (labelled)": failure | LABELS,  # FailJob, and a refused quote to support
        "dead letter (nrf dlq)": failure,
        "queue stalled (housekeeping)": stall,
    }
    everywhere = set.intersection(*senders.values())
    assert placeholders("job-failed.txt") == everywhere
    # Only the data labels are left out: they label figures, and a failure has none; the
    # dead-letter and stall notices, which open no bundle, cannot give them.
    assert set.union(*senders.values()) - everywhere == LABELS


def test_the_delayed_template_shows_every_field_it_is_sent() -> None:
    assert placeholders("job-delayed.txt") == housekeeping_fields()[NotificationKind.DELAYED]


def test_every_template_starts_with_its_subject_line() -> None:
    for path in sorted(TEMPLATES.glob("*.txt")):
        assert path.read_text(encoding="utf-8").startswith("Subject: "), path.name
