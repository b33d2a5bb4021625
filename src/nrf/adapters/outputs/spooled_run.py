"""A batch's results kept on disk as they are made, read back in order by the writers.

A national file (1,000,000 sites) as one in-memory run takes ~24 KB a site. Spooled, each
site is pickled to a temporary file as it comes out of the assessment; a writer reads the
records back one at a time (as often as it needs: the JSON walks the in-scope sites, then
the out-of-scope ones), so memory holds one batch of records, whatever the file's size.
"""

from __future__ import annotations

import heapq
import pickle
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Generic, TypeVar, cast

from nrf.domain.assessment import levy_total_excluding_vat
from nrf.domain.model import Boundary, Development
from nrf.domain.results import (
    AssessmentRun,
    OutOfScopeSite,
    Provenance,
    RunWarning,
    SiteAssessment,
)

_T = TypeVar("_T")
_Item = TypeVar("_Item", SiteAssessment, OutOfScopeSite, SiteAssessment | OutOfScopeSite)
BATCH = 256  # records per pickle: class names are written once a batch, not once a record


class Spool(Generic[_T]):
    """Records appended to a file in order; iterated from the start, any number of times.

    Sized and iterable like the tuple it stands in for; indexing is not offered.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._handle = path.open("wb")
        self._pending: list[_T] = []
        self._count = 0

    def append(self, item: _T) -> None:
        self._pending.append(item)
        self._count += 1
        if len(self._pending) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            pickle.dump(self._pending, self._handle, protocol=pickle.HIGHEST_PROTOCOL)
            self._pending = []

    def close(self) -> None:
        """No more records: everything appended is now readable."""
        self._flush()
        self._handle.close()

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[_T]:
        if not self._handle.closed:
            raise RuntimeError("a spool is read only once it is closed")
        with self._path.open("rb") as handle:
            while True:
                try:
                    batch: list[_T] = pickle.load(handle)
                except EOFError:
                    return
                yield from batch


def spool_developments(
    developments: Iterable[Development], folder: Path
) -> tuple[Iterator[Development], Spool[Development]]:
    """``developments`` to pass on, and the spool each is appended to as it passes (closed
    once they all have): the checked sites, read back to assess them and to write their
    boundaries (GeoJSON) without reading and checking the file again."""
    shapes: Spool[Development] = Spool(folder / "developments.pickle")
    return _copied(developments, shapes), shapes


def _copied(developments: Iterable[Development], into: Spool[Development]) -> Iterator[Development]:
    for development in developments:
        into.append(development)
        yield development
    into.close()


def spool_run(
    outcomes: Iterable[SiteAssessment | OutOfScopeSite],
    provenance: Provenance,
    folder: Path,
    warnings: tuple[RunWarning, ...] = (),
) -> AssessmentRun:
    """The run of ``outcomes`` with its sites and out-of-scope sites spooled under ``folder``,
    and the ``warnings`` found while reading its sites.

    The writers only iterate and count a run's two lists, so the spools stand in for the
    tuples (hence the casts); the levy total is summed by reading the sites back once.
    """
    sites: Spool[SiteAssessment] = Spool(folder / "sites.pickle")
    out: Spool[OutOfScopeSite] = Spool(folder / "out-of-scope.pickle")
    for outcome in outcomes:
        if isinstance(outcome, SiteAssessment):
            sites.append(outcome)
        else:
            out.append(outcome)
    sites.close()
    out.close()
    return AssessmentRun(
        provenance=provenance,
        warnings=warnings,
        sites=cast(tuple[SiteAssessment, ...], sites),
        out_of_scope=cast(tuple[OutOfScopeSite, ...], out),
        levy_total_excluding_vat=levy_total_excluding_vat(sites),
    )


def in_input_order(
    sites: Iterable[SiteAssessment], out_of_scope: Iterable[OutOfScopeSite] = ()
) -> Iterator[SiteAssessment | OutOfScopeSite]:
    """Every outcome by ``rlb_id`` (input order). Spooled lists are in that order already and
    are merged as they are read; lists in memory are sorted, as they always were."""
    if isinstance(sites, Spool) or isinstance(out_of_scope, Spool):
        merged: Iterator[SiteAssessment | OutOfScopeSite] = heapq.merge(
            sites, out_of_scope, key=_rlb_id
        )
        return merged
    together: list[SiteAssessment | OutOfScopeSite] = [*sites, *out_of_scope]
    return iter(sorted(together, key=_rlb_id))


def in_order(items: Iterable[_Item]) -> Iterator[_Item]:
    """One list of outcomes by ``rlb_id`` (see ``in_input_order``)."""
    if isinstance(items, Spool):
        return iter(items)
    return iter(sorted(items, key=lambda item: item.site.rlb_id))


def with_boundaries(
    items: Iterable[_Item], developments: Iterable[Development]
) -> Iterator[tuple[_Item, Boundary]]:
    """Each outcome with its site's boundary. Spooled developments are in input order, so
    they are walked beside the outcomes; a list in memory is looked up by ``rlb_id``."""
    if isinstance(developments, Spool):
        walked = iter(developments)
        for item in items:
            development = next(walked)
            while development.rlb_id != item.site.rlb_id:
                development = next(walked)
            yield item, development.boundary
        return
    boundaries = {d.rlb_id: d.boundary for d in developments}
    for item in items:
        yield item, boundaries[item.site.rlb_id]


def _rlb_id(item: SiteAssessment | OutOfScopeSite) -> int:
    return item.site.rlb_id
