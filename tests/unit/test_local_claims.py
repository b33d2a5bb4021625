"""LocalResultStore claims: one holder at a time, expired leases taken over, crashes survived."""

from __future__ import annotations

import threading
from pathlib import Path

from nrf.adapters.result_store.local_result_store import LocalResultStore
from nrf.domain.claims import Lease

T0 = 1_700_000_000.0


def test_the_first_claim_is_granted_and_marked_first(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    lease = store.claim("job-1", "a", T0, 30)
    assert lease == Lease(job_id="job-1", owner="a", expires_at=T0 + 30, first=True)
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == [], "no job folder yet"


def test_a_live_lease_refuses_others_and_is_renewed_by_its_owner(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    store.claim("job-1", "a", T0, 30)
    assert store.claim("job-1", "b", T0 + 29, 30) == Lease(
        job_id="job-1", owner="a", expires_at=T0 + 30
    )
    assert store.claim("job-1", "a", T0 + 29, 30) == Lease(
        job_id="job-1", owner="a", expires_at=T0 + 59
    )
    assert store.claim("job-1", "b", T0 + 58, 30).owner == "a"


def test_an_expired_or_released_lease_is_taken_over_but_not_as_first(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    store.claim("job-1", "a", T0, 30)
    assert store.claim("job-1", "b", T0 + 30, 30) == Lease(
        job_id="job-1", owner="b", expires_at=T0 + 60
    )
    store.release("job-1", "a", T0 + 31)  # not a's any more: no effect
    assert store.claim("job-1", "c", T0 + 31, 30).owner == "b"
    store.release("job-1", "b", T0 + 32)
    assert store.claim("job-1", "c", T0 + 33, 30) == Lease(
        job_id="job-1", owner="c", expires_at=T0 + 63
    )


def test_a_torn_claim_file_is_free_but_not_first(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    (tmp_path / ".claim-job-1").write_bytes(b'{"job_id": "job-1", "own')
    assert store.claim("job-1", "a", T0, 30) == Lease(
        job_id="job-1", owner="a", expires_at=T0 + 30, first=False
    )


def test_of_many_racing_claimants_exactly_one_wins_every_time(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    for round_ in range(20):
        job_id = f"job-{round_}"
        if round_ % 2:  # half the rounds race for a takeover of an expired lease
            store.claim(job_id, "old", T0 - 100, 30)
        start = threading.Barrier(8)
        granted: list[str] = []

        def contend(
            owner: str,
            job_id: str = job_id,
            start: threading.Barrier = start,
            granted: list[str] = granted,
        ) -> None:
            start.wait()
            if store.claim(job_id, owner, T0, 30).held_by(owner):
                granted.append(owner)

        threads = [threading.Thread(target=contend, args=(f"w{i}",)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(granted) == 1, (job_id, granted)
