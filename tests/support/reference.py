"""Build small reference data sets in memory for domain tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import shapely
from shapely.geometry import box

from nrf.domain.levy_rounding import UNSTATED, LevyRounding
from nrf.domain.model import (
    Boundary,
    BundleInfo,
    CoefficientPolygon,
    EdpPolygon,
    ExcludedArea,
    LevyCharge,
    LookupTables,
    NnCatchment,
    OccupancyRate,
    RatesTable,
    SiteReferenceData,
    WwtwPermit,
    Zone,
    category_key,
)
from nrf.domain.results import IndexRow

# The day the tests quote on: inside the Norfolk charge's first window, in its start year.
QUOTE_DATE = date(2026, 11, 26)
QUOTE_MOMENT = datetime(2026, 11, 26, 23, 59, tzinfo=UTC).timestamp()  # a clock's now()
NORFOLK_EDP = "Norfolk EDP"


def square(x0: float, y0: float, size: float) -> Boundary:
    """A square in EPSG:27700 metres with its lower-left corner at (x0, y0)."""
    return box(x0, y0, x0 + size, y0 + size)


def permit(
    wwtw_id: int,
    name: str,
    n: tuple[float | None, float | None] = (27.0, 10.0),
    p: tuple[float | None, float | None] = (1.0, 1.0),
    subcatchment: str | None = None,
) -> WwtwPermit:
    return WwtwPermit(
        wwtw_id=wwtw_id,
        wwtw_name=name,
        wwtw_subcatchment=subcatchment,
        n_conc_2025_2030=n[0],
        n_conc_2030_on=n[1],
        p_conc_2025_2030=p[0],
        p_conc_2030_on=p[1],
    )


def rates(
    catchments: dict[str, tuple[float, float]] | None = None,
    categories: dict[str, tuple[float, float]] | None = None,
    default: tuple[float, float] = (2.4, 120.0),
) -> RatesTable:
    return RatesTable(
        by_category={category_key(k): OccupancyRate(*v) for k, v in (categories or {}).items()},
        by_catchment={k: OccupancyRate(*v) for k, v in (catchments or {}).items()},
        default=OccupancyRate(*default),
    )


def levy_charge(
    edp_id: int = 1,
    name: str = NORFOLK_EDP,
    base: str = "2675.0000",
    valid: tuple[date, date] = (date(2026, 1, 1), date(2027, 12, 31)),
    start: date = date(2026, 1, 1),
) -> LevyCharge:
    """A charging-schedule row; by default Defra's Norfolk EDP charge (£2,675.0000 a home)."""
    return LevyCharge(
        edp_id=edp_id,
        edp_name=name,
        edp_start_date=start,
        charge_valid_from=valid[0],
        charge_valid_to=valid[1],
        base_charge_per_unit=Decimal(base),
    )


def index_row(year: int, cil: str, factor: str) -> IndexRow:
    return IndexRow(charging_year=year, cil_index=Decimal(cil), index_factor=Decimal(factor))


# Defra's published RICS CIL index rows for 2025 and 2026, and a made-up 2027 row (1.0300).
TEST_INDEX = (
    index_row(2025, "391", "0.9775"),
    index_row(2026, "400", "1.0000"),
    index_row(2027, "412", "1.0300"),
)


class InMemoryBoundaryData:
    """A BoundaryDataRepository over lists in memory; counts the sites it was asked about."""

    def __init__(
        self,
        *,
        nn: Sequence[NnCatchment] = (),
        wwtw: Sequence[Zone] = (),
        lpa: Sequence[Zone] = (),
        sub: Sequence[Zone] = (),
        coefficients: Sequence[CoefficientPolygon] = (),
        permits: Sequence[WwtwPermit] = (),
        rates_table: RatesTable | None = None,
        edps: Sequence[EdpPolygon] = (),
        excluded: Sequence[ExcludedArea] = (),
        charges: Sequence[LevyCharge] = (),
        index: Sequence[IndexRow] = TEST_INDEX,
        vat_rate: str = "0.20",
        rounding: LevyRounding = UNSTATED,
        info: BundleInfo | None = None,
    ) -> None:
        self._nn, self._wwtw, self._lpa, self._sub = list(nn), list(wwtw), list(lpa), list(sub)
        self._coefficients = list(coefficients)
        self._edps, self._excluded = list(edps), list(excluded)
        self._lookups = LookupTables(
            permits={p.wwtw_id: p for p in permits},
            rates=rates_table or rates(),
            levy_charges=tuple(charges),
            inflation_index={r.charging_year: r for r in index},
            vat_rate=Decimal(vat_rate),
            levy_rounding=rounding,
            edps={e.edp_id: e.edp_name for e in edps},
        )
        self._info = info or BundleInfo(
            name="test-bundle",
            version="1",
            created="2026-11-25",
            description="unit test data",
            sha256="0" * 64,
        )
        self.queries: list[Boundary] = []
        self.batches: list[int] = []  # sites per references_for call

    def info(self) -> BundleInfo:
        return self._info

    def lookups(self) -> LookupTables:
        return self._lookups

    def references_for(self, boundaries: Sequence[Boundary]) -> list[SiteReferenceData]:
        self.batches.append(len(boundaries))
        return [self.reference_for(b) for b in boundaries]

    def reference_for(self, boundary: Boundary) -> SiteReferenceData:
        self.queries.append(boundary)
        env = shapely.box(*boundary.bounds)

        def near(items: Sequence[Any]) -> tuple[Any, ...]:
            return tuple(i for i in items if shapely.box(*i.geometry.bounds).intersects(env))

        return SiteReferenceData(
            nn_catchments=near(self._nn),
            wwtw_catchments=near(self._wwtw),
            lpa_boundaries=near(self._lpa),
            subcatchments=near(self._sub),
            coefficients=near(self._coefficients),
            edps=near(self._edps),
            excluded_areas=near(self._excluded),
        )


STRIP_ORIGIN = (600_000.0, 300_000.0)


def two_catchment_strip(
    info: BundleInfo | None = None, rounding: LevyRounding = UNSTATED
) -> InMemoryBoundaryData:
    """A 2 km strip at STRIP_ORIGIN: Wensum (id 1) west, Broads (id 2) east, nothing south.

    Both catchments lie in one EDP (1, the Norfolk EDP, £2,675.0000 a home over 2026-2027).

    Shared by the quote, API and report tests, which read their figures off this layout.
    """
    X0, Y0 = STRIP_ORIGIN
    return InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(X0, Y0, X0 + 1000, Y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            ),
            NnCatchment(
                geometry=box(X0 + 1000, Y0, X0 + 2000, Y0 + 1000),
                n2k_site_name="The Broads SAC",
                edp_id="2",
            ),
        ],
        wwtw=[
            Zone(box(X0, Y0, X0 + 2000, Y0 + 1000), 1065),
            Zone(box(X0, Y0 - 1000, X0 + 1000, Y0), 2002),  # no permit row
        ],
        lpa=[Zone(box(X0, Y0 - 5000, X0 + 5000, Y0 + 5000), "Breckland")],
        sub=[Zone(box(X0 - 5000, Y0 - 5000, X0 + 5000, Y0 + 5000), "Wensum")],
        coefficients=[
            CoefficientPolygon(
                geometry=box(X0 - 5000, Y0 - 5000, X0 + 5000, Y0 + 5000),
                lu_curr_n_coeff=5.57,
                lu_curr_p_coeff=0.24,
                n_resi_coeff=12.0,
                p_resi_coeff=0.5,
            )
        ],
        permits=[permit(1065, "Sculthorpe", n=(27.0, 10.0), p=(1.0, 1.0), subcatchment="Wensum")],
        edps=[EdpPolygon(box(X0, Y0, X0 + 2000, Y0 + 1000), 1, NORFOLK_EDP)],
        charges=[levy_charge()],
        info=info,
        rounding=rounding,
    )


def wensum_square(
    origin: tuple[float, float],
    *,
    n_current: float,
    p_current: float,
    info: BundleInfo | None = None,
) -> InMemoryBoundaryData:
    """A 1 km square at ``origin``: the Wensum (EDP 1) over works 1065 (Sculthorpe, 27/10 mg/l
    N and 1 mg/l P), one coefficient polygon (current N/P as given, resi 12 and 0.5 kg/ha), and
    the Wensum's per-kg tariff: £3,000.50 per kg N, £40,000 per kg P, shares 5, 10 and 3 %;
    the square is in the Norfolk EDP (1, £2,675.0000 a home over 2026-2027)."""
    x0, y0 = origin
    return InMemoryBoundaryData(
        nn=[
            NnCatchment(
                geometry=box(x0, y0, x0 + 1000, y0 + 1000),
                n2k_site_name="River Wensum SAC",
                edp_id="1",
            )
        ],
        wwtw=[Zone(box(x0, y0, x0 + 1000, y0 + 1000), 1065)],
        coefficients=[
            CoefficientPolygon(
                geometry=box(x0, y0, x0 + 1000, y0 + 1000),
                lu_curr_n_coeff=n_current,
                lu_curr_p_coeff=p_current,
                n_resi_coeff=12,
                p_resi_coeff=0.5,
            )
        ],
        permits=[permit(1065, "Sculthorpe")],
        edps=[EdpPolygon(box(x0, y0, x0 + 1000, y0 + 1000), 1, NORFOLK_EDP)],
        charges=[levy_charge()],
        info=info,
    )
