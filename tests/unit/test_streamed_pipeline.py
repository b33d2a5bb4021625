"""`nrf assess`'s pipeline holds a window of sites, never the file: counted, not timed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path

from shapely.geometry import box

from nrf.adapters.outputs import legacy_csv, levy_csv
from nrf.adapters.outputs.result_files import csv_sidecar
from nrf.adapters.outputs.spooled_run import spool_run
from nrf.adapters.site_map.forked_site_map import ForkedSiteMap
from nrf.domain.assessment import AssessDevelopments
from nrf.domain.model import CoefficientPolygon, NnCatchment, Zone
from nrf.domain.results import OutOfScopeSite, SiteAssessment
from nrf.domain.rules import rule_set_named
from nrf.domain.validation import BNG, FileColumns, RawFeature, validated
from support.reference import InMemoryBoundaryData, permit, rates

RULES = rule_set_named("iat-2026-04")
QUOTE_DATE = date(2026, 11, 26)
# Every feature below has all five columns.
COLUMNS = FileColumns(absent=(), names=("id", "name", "dwelling_category", "source", "dwellings"))
X0, Y0 = 600_000.0, 300_000.0
SITES = 1000
WINDOW = 50


class Counts:
    """Features read from the file, and outcomes that reached the spool."""

    def __init__(self) -> None:
        self.read = 0
        self.spooled = 0
        self.most_held = 0


def repository() -> InMemoryBoundaryData:
    """One NN catchment and one permitted works over the west half of a 2 km strip; the east
    half is in neither, so a site there is out of scope."""
    return InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            )
        ],
        wwtw=[Zone(box(X0, Y0, X0 + 1000, Y0 + 1000), 1065)],
        lpa=[Zone(box(X0, Y0, X0 + 2000, Y0 + 1000), "Breckland")],
        sub=[Zone(box(X0, Y0, X0 + 2000, Y0 + 1000), "Wensum")],
        coefficients=[
            CoefficientPolygon(
                geometry=box(X0, Y0, X0 + 2000, Y0 + 1000),
                lu_curr_n_coeff=5.57,
                lu_curr_p_coeff=0.24,
                n_resi_coeff=12.0,
                p_resi_coeff=0.5,
            )
        ],
        permits=[permit(1065, "Sculthorpe", n=(27.0, 10.0), p=(1.0, 1.0), subcatchment="W")],
        rates_table=rates(catchments={"River Wensum SAC": (2.4, 120.0)}),
    )


def features(counts: Counts) -> Iterator[RawFeature]:
    """1,000 sites of 1.5 m x 10 m along the strip: the first 500 inside the catchment, the
    rest 100 m or more east of it (no catchment, no works: out of scope)."""
    for n in range(SITES):
        counts.read += 1
        counts.most_held = max(counts.most_held, counts.read - counts.spooled)
        x = X0 + 2 * n + (100 if n >= SITES // 2 else 0)
        yield RawFeature(
            index=n + 1,
            properties={
                "id": f"S-{n + 1}",
                "name": f"site {n + 1}",
                "dwelling_category": "allocation",
                "source": "test",
                "dwellings": 1 + n % 30,
            },
            geometry=box(x, Y0 + 10, x + 1.5, Y0 + 20),
            crs=BNG,
        )


def counted(
    outcomes: Iterable[SiteAssessment | OutOfScopeSite], counts: Counts
) -> Iterator[SiteAssessment | OutOfScopeSite]:
    for outcome in outcomes:
        counts.spooled += 1
        yield outcome


def test_a_thousand_sites_pass_through_with_at_most_a_window_held(tmp_path: Path) -> None:
    counts = Counts()
    assess = AssessDevelopments(
        repository(), ForkedSiteMap(2, spare_cpus=lambda: 64.0, window=WINDOW)
    )
    developments = validated(features(counts), SITES, COLUMNS)
    outcomes = assess.outcomes(developments, RULES, QUOTE_DATE, SITES)
    run = spool_run(counted(outcomes, counts), assess.provenance(RULES), tmp_path)
    assert counts.read == counts.spooled == SITES
    # A window is read whole before its first site is assessed, and never more.
    assert counts.most_held == WINDOW
    # n < 500: x + 1.5 <= X0 + 999.5, inside; n >= 500: x >= X0 + 1100, outside
    assert len(run.sites) == 500 and len(run.out_of_scope) == 500


def test_a_spooled_run_writes_what_the_same_run_in_memory_writes(tmp_path: Path) -> None:
    assess = AssessDevelopments(repository())
    in_memory = assess(list(validated(features(Counts()), SITES, COLUMNS)), RULES, QUOTE_DATE)
    spooled = spool_run(
        assess.outcomes(validated(features(Counts()), SITES, COLUMNS), RULES, QUOTE_DATE, SITES),
        assess.provenance(RULES),
        tmp_path,
    )
    assert list(spooled.sites) == list(in_memory.sites)
    assert list(spooled.out_of_scope) == list(in_memory.out_of_scope)
    assert spooled.levy_total_excluding_vat == in_memory.levy_total_excluding_vat
    assert legacy_csv.render(spooled.sites) == legacy_csv.render(in_memory.sites)
    assert levy_csv.render(spooled, "note") == levy_csv.render(in_memory, "note")
    assert csv_sidecar(spooled) == csv_sidecar(in_memory)
