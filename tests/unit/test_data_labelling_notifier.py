"""Every job email says whether its figures come from synthetic data."""

from __future__ import annotations

import pytest

from fakes import FakeNotifier
from nrf.adapters.notifier.data_labelling_notifier import DataLabellingNotifier
from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE
from nrf.domain.jobs import Notification, NotificationKind
from nrf.domain.model import BundleInfo


class _Bundle:
    """Only the identity of a bundle; counts how often it is asked."""

    def __init__(self, name: str, description: str) -> None:
        self.asked = 0
        self._info = BundleInfo(
            name=name, version="1", created="2026-01-01", description=description, sha256="0" * 64
        )

    def info(self) -> BundleInfo:
        self.asked += 1
        return self._info


@pytest.mark.parametrize("kind", list(NotificationKind))
def test_every_kind_of_email_from_a_synthetic_bundle_says_so(kind: NotificationKind) -> None:
    inner = FakeNotifier()
    bundle = _Bundle("nrf-synthetic-norfolk", "made up")
    notifier = DataLabellingNotifier(inner, bundle)  # type: ignore[arg-type]
    notifier.send(
        Notification(
            kind=kind,
            recipient="a@example.gov.uk",
            job_id="j1",
            personalisation={"job_reference": "j1"},
        )
    )
    notifier.send(
        Notification(
            kind=kind,
            recipient="a@example.gov.uk",
            job_id="j2",
            personalisation={"job_reference": "j2"},
        )
    )
    assert [dict(n.personalisation) for n in inner.sent] == [
        {"job_reference": job, "synthetic_data": "yes", "data_notice": SYNTHETIC_NOTICE}
        for job in ("j1", "j2")
    ]
    assert bundle.asked == 1


def test_emails_from_real_data_carry_the_fields_empty() -> None:
    inner = FakeNotifier()
    notifier = DataLabellingNotifier(inner, _Bundle("national", "Defra delivery 2026-07"))  # type: ignore[arg-type]
    notifier.send(
        Notification(
            kind=NotificationKind.COMPLETED,
            recipient="a@example.gov.uk",
            job_id="j1",
            personalisation={},
        )
    )
    assert dict(inner.sent[0].personalisation) == {"synthetic_data": "no", "data_notice": ""}
