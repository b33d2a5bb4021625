"""`nrf dlq --rerun`: a refused quote's kept message goes back to the queue; nothing else does."""

from __future__ import annotations

from fakes import FakeClock, FakeJobQueue, FakeResultStore
from nrf.domain.fleet import BundleStamp
from nrf.domain.jobs import JobRecord, JobStatus
from nrf.service_layer.rerun_refused import RerunRefusedQuotes

STAMP = BundleStamp(name="b", version="1", sha256="ab" * 32)
BODY = '{"reference": "NRL-000001", "housingUnits": 3}'


class StoreFiles:
    def __init__(self, store: FakeResultStore) -> None:
        self._store = store

    def read(self, job_id: str, name: str) -> bytes | None:
        return self._store.files.get(job_id, {}).get(name)


def test_only_quotes_refused_by_a_bundle_are_requeued_with_their_message() -> None:
    store, queue = FakeResultStore(), FakeJobQueue(FakeClock())
    refused = JobRecord(job_id="NRL-000001", status=JobStatus.FAILED, bundle=STAMP)
    store.save("NRL-000001", {"message.json": BODY.encode()}, refused)
    # Failed on its input (no bundle on the record): a rerun could not help.
    bad = JobRecord(job_id="NRL-000002", status=JobStatus.FAILED, error_codes=("invalid_field",))
    store.save("NRL-000002", {}, bad)
    priced = JobRecord(job_id="NRL-000003", status=JobStatus.SUCCEEDED, bundle=STAMP)
    store.save("NRL-000003", {}, priced)
    # Refused before messages were kept.
    store.save(
        "NRL-000004", {}, JobRecord(job_id="NRL-000004", status=JobStatus.FAILED, bundle=STAMP)
    )
    rerun = RerunRefusedQuotes(store, StoreFiles(store), queue)
    outcomes = rerun(["NRL-000001", "NRL-000002", "NRL-000003", "NRL-000004", "NRL-000009"])
    assert outcomes == {
        "NRL-000001": "requeued",
        "NRL-000002": "not_refused",
        "NRL-000003": "not_refused",
        "NRL-000004": "no_message",
        "NRL-000009": "not_found",
    }
    assert [m.body for m in queue.messages.values()] == [BODY]
