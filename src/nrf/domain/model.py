"""Value types the calculation consumes: developments and reference data."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import TypeAlias

import numpy as np
from attrs import field, frozen
from numpy.typing import NDArray
from shapely.geometry import MultiPolygon, Polygon

from nrf.domain.levy_rounding import UNSTATED, LevyRounding
from nrf.domain.results import IndexRow

Boundary: TypeAlias = Polygon | MultiPolygon


@frozen(kw_only=True)
class Development:
    """One red-line boundary to assess; ``boundary`` is in EPSG:27700 metres."""

    rlb_id: int  # 1-based position in the input
    id: str
    name: str
    dwelling_category: str
    source: str
    dwellings: int
    boundary: Boundary = field(eq=False, repr=False)


@frozen(kw_only=True)
class NnCatchment:
    """A nutrient-neutrality catchment polygon: its Natura 2000 site, its own id and label.

    Defra's IAT groups catchments by N2K site (the 31-column CSV still does); its boundary check
    and PATCH list each catchment by its own ``Label``, so two catchments of one N2K site are two
    entries. A bundle built before labels were read has none: the N2K site stands in for it.
    """

    geometry: Boundary = field(eq=False, repr=False)
    n2k_site_name: str
    edp_id: str  # the polygon's own id (the delivery's ``OID``), as text; the column's old name
    label: str = ""  # the catchment's ``Label``; "" in a bundle built before it was read

    @property
    def catchment_label(self) -> str:
        """The label the catchment is listed by: its own, else its N2K site's name."""
        return self.label or self.n2k_site_name


@frozen
class EdpPolygon:
    """A polygon of an Environmental Delivery Plan (the levy is priced per EDP, not catchment)."""

    geometry: Boundary = field(eq=False, repr=False)
    edp_id: int
    edp_name: str


@frozen
class ExcludedArea:
    """A polygon where the levy is not available (a buffered SSSI); ``name`` may be blank."""

    geometry: Boundary = field(eq=False, repr=False)
    name: str


@frozen
class Zone:
    """A polygon of a reporting layer (WwTW catchment, LPA, subcatchment) and its key."""

    geometry: Boundary = field(eq=False, repr=False)
    value: str | int


@frozen(kw_only=True)
class CoefficientPolygon:
    """Land-use export coefficients (kg/ha/yr); None where the source has no value."""

    geometry: Boundary = field(eq=False, repr=False)
    lu_curr_n_coeff: float | None
    lu_curr_p_coeff: float | None
    n_resi_coeff: float | None
    p_resi_coeff: float | None


Coefficients: TypeAlias = tuple[float | None, float | None, float | None, float | None]


@frozen(kw_only=True)
class CoefficientParcels:
    """Coefficient polygons as two columns, so a batch's thousands of parcels are not each
    made an object (issue 32): ``values[i]`` is parcel i's (lu_curr_n, lu_curr_p, n_resi,
    p_resi), as ``CoefficientPolygon`` names them."""

    geometries: NDArray[np.object_] = field(eq=False, repr=False)
    values: Sequence[Coefficients]

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self) -> Iterator[CoefficientPolygon]:
        for geometry, (curr_n, curr_p, resi_n, resi_p) in zip(
            self.geometries.tolist(), self.values, strict=True
        ):
            yield CoefficientPolygon(
                geometry=geometry,
                lu_curr_n_coeff=curr_n,
                lu_curr_p_coeff=curr_p,
                n_resi_coeff=resi_n,
                p_resi_coeff=resi_p,
            )


def as_parcels(parcels: CoefficientParcels | Sequence[CoefficientPolygon]) -> CoefficientParcels:
    """Parcels as columns; a sequence of ``CoefficientPolygon`` (a test's, a map's) converted."""
    if isinstance(parcels, CoefficientParcels):
        return parcels
    geometries = np.empty(len(parcels), dtype=object)
    geometries[:] = [p.geometry for p in parcels]
    values = [
        (p.lu_curr_n_coeff, p.lu_curr_p_coeff, p.n_resi_coeff, p.p_resi_coeff) for p in parcels
    ]
    return CoefficientParcels(geometries=geometries, values=values)


@frozen(kw_only=True)
class SiteReferenceData:
    """The reference features near one site (a bbox read, a superset of what intersects)."""

    nn_catchments: tuple[NnCatchment, ...]
    wwtw_catchments: tuple[Zone, ...]
    lpa_boundaries: tuple[Zone, ...]
    subcatchments: tuple[Zone, ...]
    coefficients: CoefficientParcels = field(converter=as_parcels)
    edps: tuple[EdpPolygon, ...] = ()
    excluded_areas: tuple[ExcludedArea, ...] = ()


@frozen(kw_only=True)
class WwtwPermit:
    """Permit concentrations (mg/l) of a treatment works; None means no load."""

    wwtw_id: int
    wwtw_name: str
    wwtw_subcatchment: str | None
    n_conc_2025_2030: float | None
    n_conc_2030_on: float | None
    p_conc_2025_2030: float | None
    p_conc_2030_on: float | None


@frozen
class OccupancyRate:
    """People per dwelling and litres of water per person per day."""

    occupancy_rate: float
    water_usage_l_per_person_day: float


@frozen
class RatesTable:
    """Occupancy and water-use rates by dwelling category, by NN catchment, and a default."""

    by_category: Mapping[str, OccupancyRate]  # keys normalised with ``category_key``
    by_catchment: Mapping[str, OccupancyRate]  # keys are N2K site names
    default: OccupancyRate


def category_key(category: str) -> str:
    """Normalise a dwelling category for lookup: case and runs of spaces do not matter."""
    return " ".join(category.split()).casefold()


@frozen(kw_only=True)
class BundleInfo:
    """Identity of a reference-data bundle, carried into every result."""

    name: str
    version: str
    created: str
    description: str
    sha256: str

    @property
    def synthetic(self) -> bool:
        return "synthetic" in f"{self.name} {self.description}".casefold()


@frozen(kw_only=True)
class LevyCharge:
    """One row of an EDP's charging schedule: a charge per housing unit over a window of dates."""

    edp_id: int
    edp_name: str
    edp_start_date: date  # the EDP's own charging year is this date's calendar year
    charge_valid_from: date
    charge_valid_to: date  # inclusive
    base_charge_per_unit: Decimal  # pounds excluding VAT, 4 dp as scheduled

    def covers(self, day: date) -> bool:
        return self.charge_valid_from <= day <= self.charge_valid_to


@frozen(kw_only=True)
class LookupTables:
    """The non-spatial tables of a bundle, small enough to hold in memory."""

    permits: Mapping[int, WwtwPermit]
    rates: RatesTable
    levy_charges: tuple[LevyCharge, ...] = ()
    inflation_index: Mapping[int, IndexRow] = field(factory=dict)  # by charging year
    vat_rate: Decimal  # 0.20 is 20 %; always from the bundle, never assumed
    levy_rounding: LevyRounding = UNSTATED  # the bundle's rule; per unit if it states none
    edps: Mapping[int, str] = field(factory=dict)  # every EDP of the bundle: id -> name
    # The per-kg tariff of older bundles: an output comparison only, never the levy.
