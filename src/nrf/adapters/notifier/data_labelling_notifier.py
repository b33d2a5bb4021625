"""Every email says whether its figures come from synthetic data, whatever kind of email it is.

A wrapper round the real notifier rather than a field each use case must remember: started,
completed, failed and retried emails all pass through ``send``, so none can leave it out.
The fields are always present (``no`` and empty for real data) so a Notify template may use
``((data_notice))`` without failing for want of it.
"""

from __future__ import annotations

from attrs import evolve

from nrf.adapters.outputs.result_files import SYNTHETIC_NOTICE
from nrf.domain.jobs import Notification, NotificationRecord
from nrf.domain.ports import BoundaryDataRepository, Notifier


def data_labels(synthetic: bool) -> dict[str, str]:
    """The personalisation fields that name the kind of reference data behind an email."""
    return {
        "synthetic_data": "yes" if synthetic else "no",
        "data_notice": SYNTHETIC_NOTICE if synthetic else "",
    }


class DataLabellingNotifier:
    """Adds :func:`data_labels` for the worker's bundle to every email, then sends it."""

    def __init__(self, inner: Notifier, bundle: BoundaryDataRepository) -> None:
        self._inner = inner
        self._bundle = bundle
        self._labels: dict[str, str] | None = None

    def _labelled(self, notification: Notification) -> Notification:
        if self._labels is None:  # the bundle's identity is read once, on the first email
            self._labels = data_labels(self._bundle.info().synthetic)
        personal = {**notification.personalisation, **self._labels}
        return evolve(notification, personalisation=personal)

    def send(self, notification: Notification) -> NotificationRecord:
        return self._inner.send(self._labelled(notification))

    def sent_before(self, notification: Notification) -> bool | None:
        return self._inner.sent_before(notification)
