"""The bundle rows the worker tests' sample site lies in: the inputs of its hand-worked figures.

The worker tests send ``SITE_RING`` (support.worker_jobs) and check the figures the real
worker computes from the bundled synthetic GeoPackage. Those figures are worked by hand, next
to each assertion, from the facts below; tests/integration/test_worker_sample_site.py reads
the GeoPackage with GDAL (pyogrio), not with nrf's own reader, and fails naming the fact if
the bundle no longer says so.

The whole site lies inside one row of each layer it touches:

- land_use_coefficients: current N 15.151, P 1.481; residential N 17.024, P 0.993 (kg/ha/yr);
- nn_catchments: "River Wensum SAC", EDP 1;
- wwtw_catchments: none, so the rule sets' fallback works 141 ("Package Treatment Plant
  default"), whose permit from 2030 is N 25 mg/l, P 4.5 mg/l;
- occupancy_rates: no row for "housing"; River Wensum SAC's row is 2.4 people x 120 l/day;
- edp_boundaries: EDP 1 (Defra's Norfolk EDP); levy_charges: EDP 1 from 2026-01-01 to
  2027-12-31 (inclusive), £2,675.0000 per housing unit, the EDP starting 2026-01-01;
  levy_settings: VAT 0.20.

Under the default rule set (iat-2026-04: works at 90 %, SuDS only from 50 dwellings,
greenspace only from 1 ha, buffer 20 %) and for any number of dwellings under 50:

- area, by the shoelace formula on the ring: 259.31895 m2 = 0.025931895 ha (0.03 ha rounded,
  so no greenspace);
- land use N: round2((17.024 - 15.151) x 0.025931895) = round2(0.0485704) = 0.05;
- land use P: round2((0.993 - 1.481) x 0.025931895) = round2(-0.0126548) = -0.01;
- wastewater per dwelling and year: 2.4 x 120 x 365.25 = 105 192 litres.
"""

from __future__ import annotations

BUNDLE_NAME = "nrf-synthetic-norfolk"  # bundle_info.name
SITE_AREA_M2 = 259.31895  # shoelace on SITE_RING, to 5 dp
COEFFICIENTS = {
    "lu_curr_n_coeff": 15.151,
    "lu_curr_p_coeff": 1.481,
    "n_resi_coeff": 17.024,
    "p_resi_coeff": 0.993,
}
# The bundle row as the design writes it: the Wensum is one catchment, labelled as its site.
NN_CATCHMENT = {"n2k_site_name": "River Wensum SAC", "edp_id": 1, "label": "River Wensum SAC"}
FALLBACK_WWTW_ID = 141
FALLBACK_PERMIT = {
    "wwtw_name": "Package Treatment Plant default",
    "n_conc_2030_on": 25.0,
    "p_conc_2030_on": 4.5,
}
OCCUPANCY = {"occupancy_rate": 2.4, "water_usage_l_per_person_day": 120.0}
EDP_ID = 1
LEVY_CHARGE = {
    "edp_id": 1,
    "edp_start_date": "2026-01-01",
    "charge_valid_from": "2026-01-01",
    "charge_valid_to": "2027-12-31",
    "base_charge_per_unit": "2675.0000",
}
